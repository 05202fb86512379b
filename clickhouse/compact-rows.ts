/**
 * Serialises row objects as JSONCompactEachRow (one JSON array per line) plus the column list: about half
 * the bytes of JSONEachRow and ~40 % faster to parse in chDB for 20-column rows (measured, bench/store.ts).
 * Columns are the union of the rows' keys in first-seen order; a key a row lacks is sent as null, which
 * ClickHouse reads as the column default (input_format_null_as_default), exactly like an omitted
 * JSONEachRow key.
 */
export function toJsonCompactEachRow(rows: readonly object[]): { readonly columns: string[]; readonly body: Buffer } {
  const columns: string[] = [];
  const seen = new Set<string>();
  for (const row of rows) {
    for (const k in row) {
      if (!seen.has(k)) {
        seen.add(k);
        columns.push(k);
      }
    }
  }
  const lines = new Array<string>(rows.length);
  const values = new Array<unknown>(columns.length);
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i] as Readonly<Record<string, unknown>>;
    for (let c = 0; c < columns.length; c++) values[c] = r[columns[c] as string] ?? null;
    lines[i] = JSON.stringify(values);
  }
  return { columns, body: Buffer.from(lines.join('\n'), 'utf8') };
}
