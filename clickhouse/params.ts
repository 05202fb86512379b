/** Query parameters: values for typed `{name:Type}` placeholders, sent separately from the SQL text. */
export type QueryParams = Readonly<Record<string, unknown>>;

/** A typed placeholder `{name:Type}` in a SQL text: where it is (`end` exclusive), its name and its type. */
export interface Placeholder {
  readonly start: number;
  readonly end: number;
  readonly name: string;
  readonly type: string;
}

const PLACEHOLDER = /\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*([^{}]+?)\s*\}/y;

/** End (exclusive) of the quoted run that opens at `i` with `quote`: backslash escapes and doubled quotes. */
function quotedEnd(sql: string, i: number, quote: string): number {
  let j = i + 1;
  while (j < sql.length) {
    const c = sql[j];
    if (c === '\\') j += 2;
    else if (c === quote) {
      if (sql[j + 1] === quote) j += 2;
      else return j + 1;
    } else j++;
  }
  return sql.length;
}

function scan(sql: string): readonly Placeholder[] {
  const found: Placeholder[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    if (c === "'" || c === '"' || c === '`') {
      i = quotedEnd(sql, i, c);
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? sql.length : end + 1;
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end === -1 ? sql.length : end + 2;
    } else if (c === '{') {
      PLACEHOLDER.lastIndex = i;
      const m = PLACEHOLDER.exec(sql);
      if (m === null) i++;
      else {
        found.push({ start: i, end: i + m[0].length, name: m[1] ?? '', type: m[2] ?? '' });
        i += m[0].length;
      }
    } else i++;
  }
  return found;
}

/** SQL texts scanned, kept until this many (the store's statements are a few hundred templates). */
const SCANNED_TEXTS = 1_024;
const scanned = new Map<string, readonly Placeholder[]>();

/**
 * The typed placeholders of a SQL text in order, recognised outside string literals, quoted identifiers and comments
 * only (as the engine's lexer reads the text). Pure; remembered per text (a store scans each statement on every call).
 */
export function placeholdersOf(sql: string): readonly Placeholder[] {
  let found = scanned.get(sql);
  if (found === undefined) {
    found = scan(sql);
    if (scanned.size >= SCANNED_TEXTS) scanned.clear();
    scanned.set(sql, found);
  }
  return found;
}

/** Names of the typed placeholders (`{name:Type}`) in a SQL text. */
export function placeholderNames(sql: string): ReadonlySet<string> {
  return new Set(placeholdersOf(sql).map((p) => p.name));
}

/**
 * Returns a description of the mismatch between placeholders and params, or null when every placeholder
 * has a value and every value has a placeholder (an unused value usually means SQL was string-built).
 */
export function paramsMismatch(sql: string, params: QueryParams): string | null {
  const names = placeholderNames(sql);
  const missing = [...names].filter((n) => !Object.hasOwn(params, n));
  const unused = Object.keys(params).filter((k) => !names.has(k));
  if (missing.length === 0 && unused.length === 0) return null;
  const parts: string[] = [];
  if (missing.length > 0) parts.push(`no value for placeholder(s) ${missing.join(', ')}`);
  if (unused.length > 0) parts.push(`param(s) ${unused.join(', ')} not used as {name:Type} placeholder`);
  return parts.join('; ');
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/;

/** Table/database names cannot be parameters; they must be plain (optionally db-qualified) identifiers. */
export function isPlainIdentifier(name: string): boolean {
  return IDENTIFIER.test(name);
}
