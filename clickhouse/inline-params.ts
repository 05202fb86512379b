/**
 * Typed `{name:Type}` placeholders written into the SQL text as typed literals, `CAST(<literal> AS Type)`: the value
 * the engine's own parameter binding gives the placeholder, for the values the store passes (strings, safe integers,
 * finite numbers, arrays of them, plain identifiers; no dates: the binder reads digits as
 * ticks there, a CAST as seconds). The embedded store's read sessions use it: chDB runs every
 * parameterised query of the process one at a time (its binder's state is not per connection), a query without
 * parameters runs on its own session, in parallel with the others.
 *
 * Only what is certain to bind as the engine binds is inlined; for anything else (a fractional number for an integer
 * type, an unsafe integer, a type not listed) `inlineParams` answers null and the caller binds through the engine,
 * which then accepts or refuses the value itself. String literals are escaped as ClickHouse reads them (backslash and
 * quote, and the control characters for readability): no value can leave its literal. Placeholders are those of
 * params.ts `placeholdersOf` (outside string literals, quoted identifiers and comments, as the engine's lexer reads
 * them). No I/O.
 */
import { placeholdersOf, type QueryParams } from './params.ts';

const SQL_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  "'": "\\'",
  '\0': '\\0',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};
const ESCAPED = /[\\'\0\b\f\n\r\t]/g;

/** A single-quoted ClickHouse string literal of `s`. */
export function stringLiteral(s: string): string {
  return `'${s.replace(ESCAPED, (c) => SQL_ESCAPES[c] ?? c)}'`;
}

const INTEGER_TEXT = /^-?\d{1,20}$/;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const INTEGER_TYPES = new Set(['Int8', 'Int16', 'Int32', 'Int64', 'UInt8', 'UInt16', 'UInt32', 'UInt64']);
const FLOAT_TYPES = new Set(['Float32', 'Float64']);
const ARRAY = /^Array\((.+)\)$/;

/** The literal of `value` as a `type` value (before the CAST), or null when it is not inlined. */
function literal(type: string, value: unknown): string | null {
  if (INTEGER_TYPES.has(type)) {
    if (typeof value === 'number') return Number.isSafeInteger(value) ? String(value) : null;
    if (typeof value === 'bigint') return value.toString();
    return typeof value === 'string' && INTEGER_TEXT.test(value) ? value : null;
  }
  if (FLOAT_TYPES.has(type)) return typeof value === 'number' && Number.isFinite(value) ? String(value) : null;
  if (type === 'String') return typeof value === 'string' ? stringLiteral(value) : null;
  const element = ARRAY.exec(type)?.[1];
  if (element !== undefined && Array.isArray(value)) {
    const parts: string[] = [];
    for (const v of value as readonly unknown[]) {
      const part = literal(element.trim(), v);
      if (part === null) return null;
      parts.push(part);
    }
    return `[${parts.join(',')}]`;
  }
  return null;
}

/** The text that replaces the placeholder `{name:type}` bound to `value`, or null. */
function replacement(type: string, value: unknown): string | null {
  // The binder makes the whole value one identifier (`db.t` is a table named so, not t in db).
  if (type === 'Identifier') return typeof value === 'string' && IDENTIFIER.test(value) ? `\`${value}\`` : null;
  const lit = literal(type, value);
  return lit === null ? null : `CAST(${lit} AS ${type})`;
}

/**
 * `sql` with every placeholder replaced by its value's typed literal, or null when a value is not one this inlines
 * (see the header) or a placeholder has no value. Parameters and placeholders are assumed to match (Store checks it).
 */
export function inlineParams(sql: string, params: QueryParams): string | null {
  const placeholders = placeholdersOf(sql);
  if (placeholders.length === 0) return sql;
  let out = '';
  let copied = 0;
  for (const p of placeholders) {
    if (!Object.hasOwn(params, p.name)) return null;
    const text = replacement(p.type, params[p.name]);
    if (text === null) return null;
    out += sql.slice(copied, p.start) + text;
    copied = p.end;
  }
  return out + sql.slice(copied);
}
