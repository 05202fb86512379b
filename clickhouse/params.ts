/** Query parameters: values for typed `{name:Type}` placeholders, sent separately from the SQL text. */
export type QueryParams = Readonly<Record<string, unknown>>;

const PLACEHOLDER = /\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*[^{}]+\}/g;

/** Names of the typed placeholders (`{name:Type}`) in a SQL text. */
export function placeholderNames(sql: string): ReadonlySet<string> {
  const names = new Set<string>();
  for (const m of sql.matchAll(PLACEHOLDER)) {
    if (m[1] !== undefined) names.add(m[1]);
  }
  return names;
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
