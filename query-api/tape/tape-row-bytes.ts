/**
 * The tape read's columns rendered straight to the UTF-8 JSON of the served tape row (tape-row.ts), for replays, which
 * render hundreds of thousands of trades a second: the bytes of `JSON.stringify` of the row tailEntriesOf builds
 * (tape-columns.ts), written into a JsonBytes with no string per value. The free-text columns (`id`, `instrument`,
 * `trade_id`) are read as views of the result's bytes (TAPE_VIEWS) and copied as they are when they need no escape;
 * the LowCardinality ones (venue, type, side, currency) are strings the decoder shares across rows, each encoded once
 * with the fragment that follows it. Pure.
 */
import { columnOf, type BytesColumn, type ColumnsResult, type NumberColumn, type StringColumn } from '#clickhouse/row-binary.ts';
import type { JsonBytes } from '#platform/json-bytes.ts';
import { NUMBER_COLUMNS, nullableNum, num } from './tape-columns.ts';

/** The tape read's String columns kept as views of its bytes (Store.queryColumns option `views`). */
export const TAPE_VIEWS = ['id', 'instrument', 'trade_id'] as const;
const SHARED_STRINGS = ['venue_s', 'type_s', 'side_s', 'currency_s'] as const;

export type TapeByteColumns = Record<(typeof NUMBER_COLUMNS)[number], NumberColumn> &
  Record<(typeof SHARED_STRINGS)[number], StringColumn> &
  Record<(typeof TAPE_VIEWS)[number], BytesColumn>;

export function byteColumnsOf(r: ColumnsResult): TapeByteColumns {
  const out: Record<string, NumberColumn | StringColumn | BytesColumn> = {};
  for (const name of NUMBER_COLUMNS) out[name] = columnOf(r, name, 'number', 'tape read');
  for (const name of SHARED_STRINGS) out[name] = columnOf(r, name, 'string', 'tape read');
  for (const name of TAPE_VIEWS) out[name] = columnOf(r, name, 'bytes', 'tape read');
  return out as TapeByteColumns;
}

/** Text of row `i` of a view column ('' for NULL, as tape-columns.ts `str`). */
export const viewText = (c: BytesColumn, i: number): string => c.bytes.toString('utf8', c.starts[i], c.ends[i]);

const fragment = (s: string): Buffer => Buffer.from(s, 'latin1');
const TIME = fragment('{"time":"');
const VENUE = fragment('","venue":');
const EXPIRY = fragment(',"expiry":"');
const STRIKE = fragment('","strike":');
const TYPE = fragment(',"type":');
const PRICE = fragment(',"price":');
const CURRENCY = fragment(',"price_currency":');
const PREMIUM = fragment(',"premium_usd":');
const IV = fragment(',"iv":');
const INDEX = fragment(',"index_price":');
const BLOCK_TRUE = fragment(',"block":true,"trade_id":');
const BLOCK_FALSE = fragment(',"block":false,"trade_id":');
const END = fragment('}');

/** Distinct values a Suffixed keeps (a LowCardinality column has a handful; past this they are made each time). */
const SUFFIXED_VALUES = 64;

/**
 * A LowCardinality column's value as a JSON string followed by the constant fragment after it, encoded once per
 * distinct value: one copy per row instead of an escape scan and two copies.
 */
class Suffixed {
  private readonly encoded = new Map<string, { readonly bytes: Buffer; readonly ascii: boolean }>();
  private last: string | null = null;
  private lastBytes = END;
  private lastAscii = true;

  constructor(private readonly after: string) {}

  write(out: JsonBytes, s: string): void {
    if (s !== this.last) {
      let e = this.encoded.get(s);
      if (e === undefined) {
        const text = JSON.stringify(s) + this.after;
        const bytes = Buffer.from(text, 'utf8');
        e = { bytes, ascii: bytes.length === text.length };
        if (this.encoded.size < SUFFIXED_VALUES) this.encoded.set(s, e);
      }
      this.last = s;
      this.lastBytes = e.bytes;
      this.lastAscii = e.ascii;
    }
    out.raw(this.lastBytes);
    if (!this.lastAscii) out.allAscii = false;
  }
}

/** Writes the JSON of tape row `i` (field order and values of tape-columns.ts tailEntriesOf) for `symbol`. */
export class TapeRowWriter {
  private readonly venue: Suffixed;
  private readonly type = new Suffixed(',"side":');
  private readonly side = new Suffixed(',"size":');
  private readonly currency = new Suffixed(',"price_usd":');

  constructor(symbol: string) {
    this.venue = new Suffixed(`,"symbol":${JSON.stringify(symbol)},"instrument":`);
  }

  write(out: JsonBytes, c: TapeByteColumns, i: number): void {
    out.raw(TIME);
    out.iso(num(c.ts_ms, i));
    out.raw(VENUE);
    this.venue.write(out, c.venue_s.values[i] ?? '');
    view(out, c.instrument, i);
    out.raw(EXPIRY);
    out.iso(num(c.expiry_ms, i));
    out.raw(STRIKE);
    out.number(num(c.strike, i));
    out.raw(TYPE);
    this.type.write(out, c.type_s.values[i] ?? '');
    this.side.write(out, c.side_s.values[i] ?? '');
    out.number(num(c.size, i));
    out.raw(PRICE);
    out.number(num(c.price, i));
    out.raw(CURRENCY);
    this.currency.write(out, c.currency_s.values[i] ?? '');
    out.number(num(c.price_usd, i));
    out.raw(PREMIUM);
    out.number(num(c.premium_usd, i));
    out.raw(IV);
    out.nullableNumber(nullableNum(c.iv, i));
    out.raw(INDEX);
    out.nullableNumber(nullableNum(c.index_price, i));
    out.raw(num(c.block_n, i) !== 0 ? BLOCK_TRUE : BLOCK_FALSE);
    view(out, c.trade_id, i);
    out.raw(END);
  }
}

/** A view column's value as a JSON string ('' for NULL). */
function view(out: JsonBytes, c: BytesColumn, i: number): void {
  out.jsonUtf8(c.bytes, c.starts[i] as number, c.ends[i] as number);
}
