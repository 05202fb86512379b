/**
 * THE convention for epoch-millisecond times in SQL (clickhouse/README.md, "Times in SQL"): times cross the
 * boundary as integer epoch ms; these helpers write the conversions, so no query spells them by hand.
 *
 * In:  msParam('from')  -> a `{from:Int64}` placeholder as DateTime64(3, 'UTC'); msInstant(expr) for an Int64 expression.
 * Out: msColumn(expr, alias) -> Float64 epoch ms (a JSON number; exact below 2^53, i.e. for every real instant),
 *      msNullableColumn for a Nullable column (NULL stays NULL), msValue(expr) inside larger expressions
 *      (arrayMap, groupArray); msInt64(expr) where an integer is needed (keys, bit packing; a JSON string through
 *      the store); msText(expr) for the exact decimal text.
 */

/** `{name:Int64}` epoch ms → DateTime64(3, 'UTC'). */
export function msParam(name: string): string {
  return msInstant(`{${name}:Int64}`);
}

/** An Int64 epoch-ms expression → DateTime64(3, 'UTC'). */
export function msInstant(int64Expr: string): string {
  return `fromUnixTimestamp64Milli(${int64Expr}, 'UTC')`;
}

/** DateTime64 expression → Int64 epoch ms. */
export function msInt64(expr: string): string {
  return `toUnixTimestamp64Milli(${expr})`;
}

/** DateTime64 expression → Float64 epoch ms (a JSON number). */
export function msValue(expr: string): string {
  return `toFloat64(${msInt64(expr)})`;
}

/** DateTime64 expression → epoch ms as decimal text (String). */
export function msText(expr: string): string {
  return `toString(${msInt64(expr)})`;
}

/** A Nullable(DateTime64) expression through one of the conversions above; NULL stays NULL. */
export function msNullable(expr: string, convert: (notNull: string) => string): string {
  return `if(${expr} IS NULL, NULL, ${convert(`assumeNotNull(${expr})`)})`;
}

/** DateTime64 column → epoch ms as a JSON number, named `alias`. */
export function msColumn(expr: string, alias: string): string {
  return `${msValue(expr)} AS ${alias}`;
}

/** Nullable(DateTime64) column → epoch ms as a JSON number or null, named `alias`. */
export function msNullableColumn(expr: string, alias: string): string {
  return `${msNullable(expr, msValue)} AS ${alias}`;
}
