/**
 * Reading a statement's raw result in the two formats the store decodes itself, for any transport that hands over the
 * bytes (the store's own connection, or a thread that asks the store's owner for them: query-api/replay/thread):
 * - JSONEachRow: one JSON object per line, as @clickhouse/client's `ResultSet.json()` parses it (`Store.query`);
 * - Native: column blocks (`Store.queryColumns`); an empty result is no bytes at all in Native, so the names and types
 *   of an empty result come from the same statement in RowBinaryWithNamesAndTypes (its header; no rows to send).
 * No I/O of its own: `body` runs a statement whose SQL names its format and answers the bytes.
 */
import { decodeNative, notAStringView } from './native.ts';
import { decodeRowBinary, type ColumnsResult, type ResultColumn } from './row-binary.ts';

/** The raw result of a statement whose SQL ends with its FORMAT clause. */
export type StatementBody = (sql: string) => Promise<Uint8Array>;

const utf8 = new TextDecoder();

/** The rows of a JSONEachRow result. */
export function parseJsonEachRow<T>(bytes: Uint8Array): T[] {
  const text = utf8.decode(bytes);
  const rows: T[] = [];
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    if (end > start) rows.push(JSON.parse(text.slice(start, end)) as T);
    start = end + 1;
  }
  return rows;
}

/**
 * The statement `sql` (no SETTINGS or FORMAT clause of its own) in `format`, with `settings` (e.g.
 * `os_threads_nice_value_query = 19`) in a SETTINGS clause when given.
 */
export const statementIn = (sql: string, format: string, settings = ''): string =>
  `${sql}${settings === '' ? '' : `\nSETTINGS ${settings}`}\nFORMAT ${format}`;

/** `sql` (see statementIn) read as JSONEachRow rows. */
export async function readJsonEachRow<T>(body: StatementBody, sql: string, settings = ''): Promise<T[]> {
  return parseJsonEachRow<T>(await body(statementIn(sql, 'JSONEachRow', settings)));
}

/** How a column-wise read decodes its result. */
export interface ColumnsOptions {
  /**
   * String columns kept as ranges of the result's bytes (BytesColumn, `textAt`) instead of one string per value:
   * for large values read once. The result then refers to its bytes until released (`Store.releaseColumns`).
   */
  readonly views?: readonly string[];
}

/** `sql` (see statementIn) read column-wise through Native. */
export async function readColumns(body: StatementBody, sql: string, settings = '', options: ColumnsOptions = {}): Promise<ColumnsResult> {
  const views = options.views ?? [];
  const native = decodeNative(await body(statementIn(sql, 'Native', settings)), views);
  if (native.names.length > 0) return native;
  const empty = decodeRowBinary(await body(statementIn(sql, 'RowBinaryWithNamesAndTypes', settings)));
  return views.length === 0 ? empty : { ...empty, columns: Object.fromEntries(empty.names.map((n) => [n, emptyView(empty, n, views)])) };
}

const NO_BYTES = Buffer.alloc(0);

/** Column `name` of an empty result, as a view when `views` names it (the header's types, as decodeNative checks them). */
function emptyView(r: ColumnsResult, name: string, views: readonly string[]): ResultColumn {
  const c = r.columns[name] as ResultColumn;
  if (!views.includes(name)) return c;
  if (c.kind !== 'string') throw notAStringView(name);
  return { kind: 'bytes', bytes: NO_BYTES, starts: new Uint32Array(0), ends: new Uint32Array(0), nulls: null };
}
