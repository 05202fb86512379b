/**
 * The columns each table ends up with after a sequence of DDL statements (comments already stripped, as
 * loadMigrations returns them): CREATE TABLE column lists, then ALTER TABLE ADD / DROP / MODIFY COLUMN.
 * A column with DEFAULT / MATERIALIZED / ALIAS / EPHEMERAL is marked `derived` (ClickHouse computes it).
 */
export interface DdlColumn {
  readonly name: string;
  /** Type with spaces normalised: `DateTime64(3, 'UTC')`. */
  readonly type: string;
  readonly derived: boolean;
}

const CREATE = /^\s*CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?`?(\w+)`?\s*\(/i;
const ALTER = /^\s*ALTER\s+TABLE\s+`?(\w+)`?\s+([\s\S]*)$/i;
const TYPE_END = /\s+(DEFAULT|MATERIALIZED|ALIAS|EPHEMERAL|CODEC|TTL|COMMENT|SETTINGS|FIRST|AFTER)\b/i;

export function tableColumns(statements: readonly string[]): Map<string, Map<string, DdlColumn>> {
  const tables = new Map<string, Map<string, DdlColumn>>();
  for (const sql of statements) {
    const create = CREATE.exec(sql);
    if (create) {
      const open = (create.index ?? 0) + create[0].length;
      const cols = new Map<string, DdlColumn>();
      for (const def of splitTopLevel(sql.slice(open, closingParen(sql, open)))) {
        const col = parseColumn(def);
        if (col) cols.set(col.name, col);
      }
      tables.set(create[1] ?? '', cols);
      continue;
    }
    const alter = ALTER.exec(sql);
    if (alter) applyAlter(tables.get(alter[1] ?? ''), alter[2] ?? '');
  }
  return tables;
}

function applyAlter(cols: Map<string, DdlColumn> | undefined, actions: string): void {
  if (!cols) return;
  for (const action of splitTopLevel(actions)) {
    const m = /^(ADD|MODIFY|DROP)\s+COLUMN\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?([\s\S]*)$/i.exec(action.trim());
    if (!m) continue;
    const verb = (m[1] ?? '').toUpperCase();
    if (verb === 'DROP') {
      cols.delete((m[2] ?? '').trim().replace(/`/g, ''));
      continue;
    }
    const col = parseColumn(m[2] ?? '');
    if (col) cols.set(col.name, col);
  }
}

/** `name Type [DEFAULT ...]` -> column; index / constraint / projection lines -> undefined. */
function parseColumn(def: string): DdlColumn | undefined {
  const m = /^\s*`?(\w+)`?\s+([\s\S]+)$/.exec(def);
  if (!m || /^(INDEX|CONSTRAINT|PROJECTION|PRIMARY)$/i.test(m[1] ?? '')) return undefined;
  const rest = (m[2] ?? '').trim();
  const end = TYPE_END.exec(rest);
  const type = (end ? rest.slice(0, end.index) : rest).replace(/\s+/g, '').replace(/,/g, ', ');
  const derived = end !== null && /^(DEFAULT|MATERIALIZED|ALIAS|EPHEMERAL)$/i.test(end[1] ?? '');
  return { name: m[1] ?? '', type, derived };
}

function closingParen(sql: string, from: number): number {
  let depth = 1;
  for (let i = from; i < sql.length; i++) {
    if (sql[i] === '(') depth++;
    else if (sql[i] === ')' && --depth === 0) return i;
  }
  throw new SyntaxError('unbalanced parentheses in CREATE TABLE');
}

/** Splits on commas outside parentheses and quotes. */
function splitTopLevel(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote = '';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
    } else if (c === "'" || c === '"' || c === '`') quote = c;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      out.push(s.slice(start, i));
      start = i + 1;
    }
  }
  out.push(s.slice(start));
  return out.map((x) => x.trim()).filter((x) => x.length > 0);
}
