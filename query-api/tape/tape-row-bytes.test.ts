/**
 * TapeRowWriter (the replay's rendering of a stored trade, straight to bytes) against the UTF-8 of JSON.stringify of
 * the tape row tailEntriesOf builds from the same columns (the /v2/tape row): NULL IV and index price, NaN and
 * infinities (JSON null), -0, exponents, strings that need escaping (quotes, backslash, control and non-ASCII
 * characters, ill-formed UTF-8), block flags, instants before 1970 and after 9999.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { BytesColumn, ColumnsResult, NumberColumn, StringColumn } from '#clickhouse/row-binary.ts';
import { JsonBytes } from '#platform/json-bytes.ts';
import { columnsOf, tailEntriesOf } from './tape-columns.ts';
import { byteColumnsOf, TapeRowWriter, viewText } from './tape-row-bytes.ts';

const numbers = (values: number[], nulls?: number[]): NumberColumn => ({
  kind: 'number',
  values: Float64Array.from(values),
  nulls: nulls === undefined ? null : Uint8Array.from(nulls),
});
const strings = (values: (string | null)[]): StringColumn => ({ kind: 'string', values });
/** The values as a view column over one buffer (as the Native decoder makes them), each value's bytes given. */
function views(values: Buffer[]): BytesColumn {
  const bytes = Buffer.concat([Buffer.from('header'), ...values]);
  const starts = new Uint32Array(values.length);
  const ends = new Uint32Array(values.length);
  let at = 'header'.length;
  values.forEach((v, i) => {
    starts[i] = at;
    at += v.length;
    ends[i] = at;
  });
  return { kind: 'bytes', bytes, starts, ends, nulls: null };
}
const utf8 = (values: string[]): Buffer[] => values.map((v) => Buffer.from(v, 'utf8'));

const T = Date.UTC(2026, 9, 1, 12, 0, 0, 7);
const E = Date.UTC(2026, 11, 25, 8);
const INSTRUMENTS = ['BTC-25DEC26-100000-C', 'BTC-"quoted"\\', 'BTC-\u0001\n\t', 'BTC-éè€-𝄞', 'BTC-\u007f~ '];
const TRADE_IDS = ['1', '"2"', '3\u2028', '', 'x'];
// Ill-formed UTF-8 (a lone continuation byte, a truncated sequence) reads as U+FFFD either way.
const ILL_FORMED = Buffer.from([0x41, 0x80, 0x42, 0xe2, 0x82]);
const numberColumns = {
  ts_ms: numbers([T, T + 1, T + 2, T + 3, -86_400_000 + 59_999]),
  expiry_ms: numbers([E, E, E + 86_400_000, 253_402_300_800_000, 253_402_300_799_999]),
  strike: numbers([100_000, 95_000.5, 1e21, -0, -12.5]),
  size: numbers([0.1, 1e-7, 3, 25, 2 ** 53]),
  price: numbers([0.0123, Number.NaN, 1.5, 2, 0.1 + 0.2]),
  price_usd: numbers([1_230.45, 0, Infinity, 2, -(2 ** 53) - 2]),
  premium_usd: numbers([123.045, 0, -Infinity, 50, 1e-6]),
  iv: numbers([0.55, 0, 0.61, 0, 5e-324], [0, 1, 0, 1, 0]),
  index_price: numbers([100_050, 0, 99_000, 0, 1.7976931348623157e308], [0, 1, 0, 0, 0]),
  block_n: numbers([0, 1, 0, 0, 1]),
};
const sharedColumns = {
  venue_s: strings(['deribit', 'okx', 'bybit', 'binance', 'de"r']),
  type_s: strings(['call', 'put', 'call', 'put', 'put']),
  side_s: strings(['buy', 'sell', 'buy', 'sell', 'sélL']),
  currency_s: strings(['BTC', 'USD', 'USDT', null, 'ETH']),
};
const IDS = ['deribit:1', 'okx:2', 'bybit:3', 'binance:4', 'x:5'];
/** The read as the tail entries read it (every String column decoded). */
const result: ColumnsResult = {
  names: [],
  rows: 5,
  columns: { ...numberColumns, ...sharedColumns, id: strings(IDS), instrument: strings(INSTRUMENTS), trade_id: strings(TRADE_IDS) },
};
/** The same read as the replay reads it (the free-text columns as views of the result's bytes). */
const viewed: ColumnsResult = {
  names: [],
  rows: 5,
  columns: {
    ...numberColumns,
    ...sharedColumns,
    id: views(utf8(IDS)),
    instrument: views(utf8(INSTRUMENTS)),
    trade_id: views(utf8(TRADE_IDS)),
  },
};

test('TapeRowWriter: the UTF-8 of JSON.stringify of the tape row, for every row', () => {
  const entries = tailEntriesOf(columnsOf(result), 5, 'BTCUSDT');
  const c = byteColumnsOf(viewed);
  const writer = new TapeRowWriter('BTCUSDT');
  // A small buffer: rows are written across its growth.
  const out = new JsonBytes(16);
  const ends: number[] = [];
  for (let i = 0; i < 5; i++) {
    writer.write(out, c, i);
    ends.push(out.pos);
  }
  for (let i = 0; i < 5; i++) {
    const e = entries[i];
    assert.ok(e !== undefined);
    const bytes = out.buf.subarray(i === 0 ? 0 : ends[i - 1], ends[i]);
    assert.deepEqual(bytes, Buffer.from(JSON.stringify(e.row), 'utf8'), `row ${i}`);
  }
  assert.equal(out.allAscii, false, 'non-ASCII text was written');
  // Row 4's only non-ASCII text is its side (a LowCardinality value, encoded once with the fragment after it); rows 0
  // and 1 are ASCII. The same writer again: its encoded values are reused.
  for (const [i, ascii] of [
    [0, true],
    [4, false],
    [1, true],
    [4, false],
  ] as const) {
    const one = new JsonBytes();
    writer.write(one, c, i);
    assert.equal(one.allAscii, ascii, `row ${i}`);
    assert.equal(one.buf.toString('utf8', 0, one.pos), JSON.stringify(entries[i]?.row), `row ${i} again`);
  }
  assert.equal(viewText(c.id, 4), 'x:5');
  // The cases are there: nulls, a non-finite number, the block flag, instants out of four-digit years.
  const rows = entries.map((e) => JSON.parse(JSON.stringify(e.row)) as Record<string, unknown>);
  assert.deepEqual(
    rows.map((r) => [r['iv'], r['index_price'], r['price'], r['block']]),
    [
      [0.55, 100_050, 0.0123, false],
      [null, null, null, true],
      [0.61, 99_000, 1.5, false],
      [null, 0, 2, false],
      [5e-324, 1.7976931348623157e308, 0.30000000000000004, true],
    ],
  );
  assert.deepEqual(rows.map((r) => [r['time'], r['expiry']]).slice(3), [
    ['2026-10-01T12:00:00.010Z', '+010000-01-01T00:00:00.000Z'],
    ['1969-12-31T00:00:59.999Z', '9999-12-31T23:59:59.999Z'],
  ]);
});

test('TapeRowWriter: an ill-formed UTF-8 value reads as U+FFFD, as the decoded string would', () => {
  const c = byteColumnsOf({
    names: [],
    rows: 5,
    columns: { ...viewed.columns, trade_id: views([...utf8(TRADE_IDS.slice(0, 4)), ILL_FORMED]) },
  });
  const out = new JsonBytes();
  new TapeRowWriter('BTCUSDT').write(out, c, 4);
  const row = JSON.parse(out.buf.toString('utf8', 0, out.pos)) as Record<string, unknown>;
  assert.equal(row['trade_id'], ILL_FORMED.toString('utf8'));
  assert.equal(row['trade_id'], 'A\uFFFDB\uFFFD');
});
