/**
 * The tape read's columns (tape/read.ts: option_trades read column-wise through Native) as served tape rows
 * (tape-row.ts) in tail entries (`tailEntriesOf`, for /v2/tape and the tape tail). Replays render the same rows
 * straight to bytes instead (tape-row-bytes.ts). Pure.
 */
import { columnOf, type ColumnsResult, type NumberColumn, type ResultColumn, type StringColumn } from '#clickhouse/row-binary.ts';
import { utcDate } from './filter.ts';
import type { TailEntry } from './tail.ts';
import type { TapeRow } from './tape-row.ts';

export const num = (c: NumberColumn, i: number): number => c.values[i] as number;
export const nullableNum = (c: NumberColumn, i: number): number | null =>
  c.nulls !== null && c.nulls[i] === 1 ? null : (c.values[i] as number);
export const str = (c: StringColumn, i: number): string => c.values[i] ?? '';

/** The names of the read's columns, in order (tape/read.ts readTapeColumns). */
export const NUMBER_COLUMNS = [
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

export type TapeColumns = Record<(typeof NUMBER_COLUMNS)[number], NumberColumn> & Record<(typeof STRING_COLUMNS)[number], StringColumn>;

export function columnsOf(r: ColumnsResult): TapeColumns {
  const out: Record<string, ResultColumn> = {};
  for (const name of NUMBER_COLUMNS) out[name] = columnOf(r, name, 'number', 'tape read');
  for (const name of STRING_COLUMNS) out[name] = columnOf(r, name, 'string', 'tape read');
  return out as TapeColumns;
}

/**
 * The statement's rows from a column-wise (RowBinary) result as tail entries around the served tape rows (the same
 * row the WebSocket tape channel sends: tape-row.ts), in one pass with no per-row closures; an expiry's ISO text
 * and UTC date are formatted once.
 */
export function tailEntriesOf(c: TapeColumns, n: number, symbol: string): TailEntry[] {
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
