/** SQL fragments shared by the snapshot queries (times cross the boundary as Int64 epoch ms). */

/** `{name:Int64}` epoch ms → DateTime64(3, 'UTC'). */
export function msParam(name: string): string {
  return `fromUnixTimestamp64Milli({${name}:Int64}, 'UTC')`;
}

/** DateTime64 column → epoch ms as a JSON number. */
export function msColumn(expr: string, alias: string): string {
  return `toFloat64(toUnixTimestamp64Milli(${expr})) AS ${alias}`;
}
