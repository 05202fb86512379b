/**
 * Reads of the option tape (/v2/tape, /v2/tape/recent) from option_trades FINAL (a redelivered trade is
 * served once): a time window, filters, keyset pagination on the sort key (ts, venue, id), `limit + 1` rows
 * to know whether a next page exists. Only typed placeholders reach the SQL.
 */
import { msParam } from '#clickhouse/epoch-ms.ts';
import type { ColumnsOptions } from '#clickhouse/read-formats.ts';
import type { ColumnsResult } from '#clickhouse/row-binary.ts';
import type { QueryParams, Store } from '#clickhouse/store.ts';
import { encodeCursor, type TapeCursor, type TapeOrder } from './cursor.ts';
import type { TapeFilter, TapePage } from './filter.ts';
import type { TailEntry } from './tail.ts';
import { columnsOf, tailEntriesOf, type TapeColumns } from './tape-columns.ts';

export type { TapeFilter, TapePage } from './filter.ts';

function whereOf(f: TapeFilter, cursor: TapeCursor | null): { readonly where: string; readonly params: QueryParams } {
  const c = [`symbol = {symbol:String}`, `ts >= ${msParam('from')}`, `ts <= ${msParam('to')}`];
  const params: Record<string, string | number | readonly string[]> = {
    symbol: f.symbol,
    from: Math.trunc(f.fromMs),
    to: Math.trunc(f.toMs),
  };
  if (f.venues.length > 0) {
    c.push('venue IN {venues:Array(String)}');
    params.venues = f.venues;
  }
  if (f.expiryDates.length > 0) {
    c.push(`toString(toDate(expiry, 'UTC')) IN {expiries:Array(String)}`);
    params.expiries = f.expiryDates;
  }
  if (f.type !== null) {
    c.push('option_type = {type:String}');
    params.type = f.type;
  }
  if (f.side !== null) {
    c.push('side = {side:String}');
    params.side = f.side;
  }
  if (f.minPremiumUsd > 0) {
    c.push('premium_usd >= {minPremium:Float64}');
    params.minPremium = f.minPremiumUsd;
  }
  if (f.block !== null) c.push(f.block === 'only' ? 'block' : 'NOT block');
  if (cursor !== null) {
    c.push(`(ts, venue, id) ${cursor.order === 'desc' ? '<' : '>'} (${msParam('cts')}, {cvenue:String}, {cid:String})`);
    params.cts = cursor.ts;
    params.cvenue = cursor.venue;
    params.cid = cursor.id;
  }
  return { where: c.join(' AND '), params };
}

/**
 * The statement's result for `limit` stored trades in `order` after the cursor; `rows` served (at most `limit`),
 * `more`. `options` as Store.queryColumns (replays keep the free-text columns as views: tape-row-bytes.ts).
 */
export async function readTapeResult(
  store: Store,
  f: TapeFilter,
  order: TapeOrder,
  limit: number,
  cursor: TapeCursor | null,
  options: ColumnsOptions = {},
): Promise<{ readonly result: ColumnsResult; readonly rows: number; readonly more: boolean }> {
  const { where, params } = whereOf(f, cursor);
  const dir = order === 'desc' ? 'DESC' : 'ASC';
  // Times as Int64 epoch ms (exact below 2^53); the symbol is the filter's (not read). No alias equals a column
  // name (ClickHouse would substitute the alias for the column in WHERE / ORDER BY).
  const sql = `SELECT toUnixTimestamp64Milli(ts) AS ts_ms, venue AS venue_s, id, instrument, toUnixTimestamp64Milli(expiry) AS expiry_ms, strike,
       option_type AS type_s, side AS side_s, size, price, price_currency AS currency_s, price_usd, premium_usd, iv, index_price,
       toUInt8(block) AS block_n, trade_id
FROM option_trades FINAL
WHERE ${where}
ORDER BY ts ${dir}, venue ${dir}, id ${dir}
LIMIT {limit:UInt32}`;
  const result = await store.queryColumns(sql, { ...params, limit: limit + 1 }, options);
  const rows = Math.min(result.rows, limit);
  return { result, rows, more: result.rows > limit && rows > 0 };
}

/** The statement's columns for `limit` stored trades in `order` after the cursor; `rows` served (at most `limit`), `more`. */
export async function readTapeColumns(
  store: Store,
  f: TapeFilter,
  order: TapeOrder,
  limit: number,
  cursor: TapeCursor | null,
): Promise<{ readonly columns: TapeColumns; readonly rows: number; readonly more: boolean }> {
  const { result, rows, more } = await readTapeResult(store, f, order, limit, cursor);
  return { columns: columnsOf(result), rows, more };
}

/**
 * `limit` stored trades in `order` after the cursor (which must have been issued for the same order), and whether
 * more follow (the statement reads `limit + 1`).
 */
export async function readTapeEntries(
  store: Store,
  f: TapeFilter,
  order: TapeOrder,
  limit: number,
  cursor: TapeCursor | null,
): Promise<{ readonly entries: TailEntry[]; readonly more: boolean }> {
  const { columns, rows, more } = await readTapeColumns(store, f, order, limit, cursor);
  return { entries: tailEntriesOf(columns, rows, f.symbol), more };
}

/** One page from the store: `limit` trades in `order` after the cursor (issued for the same order). */
export async function readTape(store: Store, f: TapeFilter, order: TapeOrder, limit: number, cursor: TapeCursor | null): Promise<TapePage> {
  const { entries, more } = await readTapeEntries(store, f, order, limit, cursor);
  const last = entries[entries.length - 1];
  return {
    trades: entries.map((e) => e.row),
    nextCursor: more && last !== undefined ? encodeCursor({ ts: last.ts, venue: last.venue, id: last.id, order }) : null,
  };
}
