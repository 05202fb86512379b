/**
 * Reads of the option tape (/v2/tape, /v2/tape/recent) from option_trades FINAL (a redelivered trade is
 * served once): a time window, filters, keyset pagination on the sort key (ts, venue, id), `limit + 1` rows
 * to know whether a next page exists. Only typed placeholders reach the SQL.
 */
import { msParam } from '../../clickhouse/epoch-ms.ts';
import { cellAt } from '../../clickhouse/row-binary.ts';
import type { ColumnsResult, ResultColumn } from '../../clickhouse/row-binary.ts';
import type { QueryParams, Store } from '../../clickhouse/store.ts';
import type { MarketSymbol } from '../../schemas/events.ts';
import { encodeCursor, type TapeCursor, type TapeOrder } from './cursor.ts';
import type { TapeRow } from './tape-row.ts';

export interface TapeFilter {
  readonly symbol: MarketSymbol;
  readonly fromMs: number;
  readonly toMs: number;
  /** Empty: every venue. */
  readonly venues: readonly string[];
  /** Expiry dates `YYYY-MM-DD` (UTC day of the expiry instant); empty: all. */
  readonly expiryDates: readonly string[];
  readonly type: 'call' | 'put' | null;
  readonly side: 'buy' | 'sell' | null;
  readonly minPremiumUsd: number;
  readonly block: 'only' | 'exclude' | null;
}


export interface TapePage {
  readonly trades: TapeRow[];
  readonly nextCursor: string | null;
}

/** A stored row: the served fields that need no conversion, plus the raw ones. */
interface Row extends Pick<TapeRow, 'venue' | 'symbol' | 'instrument' | 'strike' | 'side' | 'size' | 'price' | 'price_currency' | 'price_usd' | 'premium_usd' | 'iv' | 'index_price' | 'trade_id'> {
  readonly ts_ms: number;
  readonly id: string;
  readonly expiry_ms: number;
  readonly option_type: 'call' | 'put';
  readonly block: boolean | number;
}

function whereOf(f: TapeFilter, cursor: TapeCursor | null): { readonly where: string; readonly params: QueryParams } {
  const c = [`symbol = {symbol:String}`, `ts >= ${msParam('from')}`, `ts <= ${msParam('to')}`];
  const params: Record<string, string | number | readonly string[]> = { symbol: f.symbol, from: Math.trunc(f.fromMs), to: Math.trunc(f.toMs) };
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

const iso = (ms: number): string => new Date(ms).toISOString();

/** A stored trade as the tape row (the same row the WebSocket tape channel sends: tape-row.ts). */
function tradeOf(r: Row): TapeRow {
  return {
    time: iso(r.ts_ms),
    venue: r.venue,
    symbol: r.symbol,
    instrument: r.instrument,
    expiry: iso(r.expiry_ms),
    strike: r.strike,
    type: r.option_type,
    side: r.side,
    size: r.size,
    price: r.price,
    price_currency: r.price_currency,
    price_usd: r.price_usd,
    premium_usd: r.premium_usd,
    iv: r.iv,
    index_price: r.index_price,
    block: Boolean(r.block),
    trade_id: r.trade_id,
  };
}

/** The page's rows from a column-wise (RowBinary) result: no JSON formatting and parsing of up to 1,001 rows. */
function rowsOf(r: ColumnsResult): Row[] {
  const col = (name: string): ResultColumn => r.columns[name] as ResultColumn;
  const [ts, venue, symbol, id, instrument, expiry, strike, type, side, size, price, currency, priceUsd, premium, iv, index, block, tradeId] = [
    'ts_ms', 'venue_s', 'symbol_s', 'id', 'instrument', 'expiry_ms', 'strike', 'type_s', 'side_s', 'size', 'price', 'currency_s', 'price_usd', 'premium_usd', 'iv',
    'index_price', 'block_n', 'trade_id',
  ].map(col) as ResultColumn[];
  const out: Row[] = new Array(r.rows);
  for (let i = 0; i < r.rows; i++) {
    const n = (c: ResultColumn | undefined): number | null => cellAt(c as ResultColumn, i) as number | null;
    const s = (c: ResultColumn | undefined): string => cellAt(c as ResultColumn, i) as string;
    out[i] = {
      ts_ms: n(ts) as number, venue: s(venue), symbol: s(symbol) as Row['symbol'], id: s(id), instrument: s(instrument), expiry_ms: n(expiry) as number,
      strike: n(strike) as number, option_type: s(type) as Row['option_type'], side: s(side) as Row['side'], size: n(size) as number, price: n(price) as number,
      price_currency: s(currency), price_usd: n(priceUsd) as number, premium_usd: n(premium) as number, iv: n(iv), index_price: n(index), block: n(block) as number,
      trade_id: s(tradeId),
    };
  }
  return out;
}

/** One page: `limit` trades in `order` after the cursor (which must have been issued for the same order). */
export async function readTape(store: Store, f: TapeFilter, order: TapeOrder, limit: number, cursor: TapeCursor | null): Promise<TapePage> {
  const { where, params } = whereOf(f, cursor);
  const dir = order === 'desc' ? 'DESC' : 'ASC';
  // Times as Int64 epoch ms (exact below 2^53), enum-like columns as strings: RowBinary-readable types.
  // No alias equals a column name (ClickHouse would substitute the alias for the column in WHERE / ORDER BY).
  const sql = `SELECT toUnixTimestamp64Milli(ts) AS ts_ms, toString(venue) AS venue_s, toString(symbol) AS symbol_s, id, instrument,
       toUnixTimestamp64Milli(expiry) AS expiry_ms, strike, toString(option_type) AS type_s, toString(side) AS side_s, size, price,
       toString(price_currency) AS currency_s, price_usd, premium_usd, iv, index_price, toUInt8(block) AS block_n, trade_id
FROM option_trades FINAL
WHERE ${where}
ORDER BY ts ${dir}, venue ${dir}, id ${dir}
LIMIT {limit:UInt32}`;
  const rows = rowsOf(await store.queryColumns(sql, { ...params, limit: limit + 1 }));
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const more = rows.length > limit && last !== undefined;
  return { trades: page.map(tradeOf), nextCursor: more ? encodeCursor({ ts: last.ts_ms, venue: last.venue, id: last.id, order }) : null };
}
