import type { FastifySchemaCompiler } from 'fastify';

/** Validated answers kept per route; the table starts over when full. */
const MAX_ENTRIES = 512;
/** Queries whose key would be longer than this are always validated in full. */
const MAX_KEY_LENGTH = 1024;

/**
 * Length-prefixed `name value` pairs in arrival order (unambiguous whatever the characters), or null when a
 * value is not a single string (repeated parameters: validated in full) or the key would be too long.
 */
function queryKey(data: unknown): string | null {
  if (typeof data !== 'object' || data === null) return null;
  let key = '';
  for (const name in data) {
    const value = (data as Record<string, unknown>)[name];
    if (typeof value !== 'string') return null;
    key += `${name.length}:${name}${value.length}:${value}`;
    if (key.length > MAX_KEY_LENGTH) return null;
  }
  return key;
}

/** The validated object of a successful validator answer, else undefined. */
function validValue(r: unknown): Readonly<Record<string, unknown>> | undefined {
  if (typeof r !== 'object' || r === null) return undefined;
  const { error, value } = r as { readonly error?: unknown; readonly value?: unknown };
  return error === undefined && typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
}

/**
 * Wraps a validator compiler so that a querystring seen before (same parameters, same values) is answered
 * from memory instead of running the schema again: the hot routes are called with a handful of exact
 * parameter forms. Only for pure schemas (the answer depends on the input alone); only successful answers
 * are kept, and each request gets its own shallow copy of the validated object. Other request parts and
 * anything unusual go through `inner` every time.
 */
export function memoQueryValidator<S>(inner: FastifySchemaCompiler<S>): FastifySchemaCompiler<S> {
  return (route) => {
    const validate = inner(route);
    if (route.httpPart !== 'querystring') return validate;
    let seen = new Map<string, Readonly<Record<string, unknown>>>();
    const memo: ReturnType<FastifySchemaCompiler<S>> = (data: unknown) => {
      const key = queryKey(data);
      if (key === null) return validate(data);
      const hit = seen.get(key);
      if (hit !== undefined) return { value: { ...hit } };
      const result = validate(data);
      const value = validValue(result);
      if (value !== undefined) {
        if (seen.size >= MAX_ENTRIES) seen = new Map();
        seen.set(key, { ...value });
      }
      return result;
    };
    return memo;
  };
}
