/**
 * Reads of the option tape (/v2/tape, /v2/tape/recent) from option_trades FINAL (a redelivered trade is
 * served once): a time window, filters, keyset pagination on the sort key (ts, venue, id), `limit + 1` rows
 * to know whether a next page exists. Only typed placeholders reach the SQL.
 */
import { msParam } from '#clickhouse/epoch-ms.ts';
import type { ColumnsResult, NumberColumn, ResultColumn, StringColumn } from '#clickhouse/row-binary.ts';
import type { QueryParams, Store } from '#clickhouse/store.ts';
import { encodeCursor, type TapeCursor, type TapeOrder } from './cursor.ts';
import { utcDate, type TapeFilter, type TapePage } from './filter.ts';
import type { TailEntry } from './tail.ts';
import type { TapeRow } from './tape-row.ts';

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

const num = (c: NumberColumn, i: number): number => c.values[i] as number;
const nullableNum = (c: NumberColumn, i: number): number | null => (c.nulls !== null && c.nulls[i] === 1 ? null : (c.values[i] as number));
const str = (c: StringColumn, i: number): string => c.values[i] ?? '';

/** The names of the statement's columns, in order (the SELECT below). */
const NUMBER_COLUMNS = [
  'ts_ms',
  'expiry_ms',
  'strike',
  'size',
  'price',
  'price_usd',
  'premium_usd',
  'iv',
  'index_price',
  'block_n',
] as const;
const STRING_COLUMNS = ['venue_s', 'id', 'instrument', 'type_s', 'side_s', 'currency_s', 'trade_id'] as const;

type TapeColumns = Record<(typeof NUMBER_COLUMNS)[number], NumberColumn> & Record<(typeof STRING_COLUMNS)[number], StringColumn>;

function columnsOf(r: ColumnsResult): TapeColumns {
  const out: Record<string, ResultColumn> = {};
  for (const name of NUMBER_COLUMNS) {
    const c = r.columns[name];
    if (c?.kind !== 'number') throw new Error(`tape read: column ${name} missing or not numeric`);
    out[name] = c;
  }
  for (const name of STRING_COLUMNS) {
    const c = r.columns[name];
    if (c?.kind !== 'string') throw new Error(`tape read: column ${name} missing or not a string`);
    out[name] = c;
  }
  return out as TapeColumns;
}

/**
 * The statement's rows from a column-wise (RowBinary) result as tail entries around the served tape rows (the same
 * row the WebSocket tape channel sends: tape-row.ts), in one pass with no per-row closures; an expiry's ISO text
 * and UTC date are formatted once.
 */
function entriesOf(c: TapeColumns, rows: number, symbol: string, limit: number): TailEntry[] {
  const n = Math.min(rows, limit);
  const out: TailEntry[] = new Array<TailEntry>(n);
  const expiries = new Map<number, { readonly iso: string; readonly date: string }>();
  for (let i = 0; i < n; i++) {
    const expiryMs = num(c.expiry_ms, i);
    let expiry = expiries.get(expiryMs);
    if (expiry === undefined) {
      expiry = { iso: new Date(expiryMs).toISOString(), date: utcDate(expiryMs) };
      expiries.set(expiryMs, expiry);
    }
    const ts = num(c.ts_ms, i);
    const venue = str(c.venue_s, i);
    const row: TapeRow = {
      time: new Date(ts).toISOString(),
      venue,
      symbol,
      instrument: str(c.instrument, i),
      expiry: expiry.iso,
      strike: num(c.strike, i),
      type: str(c.type_s, i) as TapeRow['type'],
      side: str(c.side_s, i) as TapeRow['side'],
      size: num(c.size, i),
      price: num(c.price, i),
      price_currency: str(c.currency_s, i),
      price_usd: num(c.price_usd, i),
      premium_usd: num(c.premium_usd, i),
      iv: nullableNum(c.iv, i),
      index_price: nullableNum(c.index_price, i),
      block: num(c.block_n, i) !== 0,
      trade_id: str(c.trade_id, i),
    };
    out[i] = { ts, venue, id: str(c.id, i), expiryDate: expiry.date, row };
  }
  return out;
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
  const result = await store.queryColumns(sql, { ...params, limit: limit + 1 });
  const entries = entriesOf(columnsOf(result), result.rows, f.symbol, limit);
  return { entries, more: result.rows > limit && entries.length > 0 };
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
