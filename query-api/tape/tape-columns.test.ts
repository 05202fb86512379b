/**
 * tapeRowJson (the replay's rendering of a stored trade) against JSON.stringify of the tape row tailEntriesOf builds
 * from the same columns (the /v2/tape row): NULL IV and index price, NaN and infinities (JSON null), -0, exponents,
 * strings that need escaping (quotes, backslash, control and non-ASCII characters), block flags.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ColumnsResult, NumberColumn, StringColumn } from '#clickhouse/row-binary.ts';
import { columnsOf, tailEntriesOf, tapeRowJson } from './tape-columns.ts';

const numbers = (values: number[], nulls?: number[]): NumberColumn => ({
  kind: 'number',
  values: Float64Array.from(values),
  nulls: nulls === undefined ? null : Uint8Array.from(nulls),
});
const strings = (values: (string | null)[]): StringColumn => ({ kind: 'string', values });

const T = Date.UTC(2026, 9, 1, 12, 0, 0, 7);
const E = Date.UTC(2026, 11, 25, 8);
const result: ColumnsResult = {
  names: [],
  rows: 4,
  columns: {
    ts_ms: numbers([T, T + 1, T + 2, T + 3]),
    expiry_ms: numbers([E, E, E + 86_400_000, E]),
    strike: numbers([100_000, 95_000.5, 1e21, -0]),
    size: numbers([0.1, 1e-7, 3, 25]),
    price: numbers([0.0123, Number.NaN, 1.5, 2]),
    price_usd: numbers([1_230.45, 0, Infinity, 2]),
    premium_usd: numbers([123.045, 0, -Infinity, 50]),
    iv: numbers([0.55, 0, 0.61, 0], [0, 1, 0, 1]),
    index_price: numbers([100_050, 0, 99_000, 0], [0, 1, 0, 0]),
    block_n: numbers([0, 1, 0, 0]),
    venue_s: strings(['deribit', 'okx', 'bybit', 'binance']),
    id: strings(['deribit:1', 'okx:2', 'bybit:3', 'binance:4']),
    instrument: strings(['BTC-25DEC26-100000-C', 'BTC-"quoted"\\', 'BTC-\u0001\n\t', 'BTC-éè€-𝄞']),
    type_s: strings(['call', 'put', 'call', 'put']),
    side_s: strings(['buy', 'sell', 'buy', 'sell']),
    currency_s: strings(['BTC', 'USD', 'USDT', null]),
    trade_id: strings(['1', '"2"', '3\u2028', '']),
  },
};

test('tapeRowJson: JSON.stringify of the tape row for every row', () => {
  const c = columnsOf(result);
  const entries = tailEntriesOf(c, 4, 'BTCUSDT');
  assert.equal(entries.length, 4);
  for (let i = 0; i < 4; i++) {
    const e = entries[i];
    assert.ok(e !== undefined);
    const json = tapeRowJson(c, i, JSON.stringify('BTCUSDT'), e.row.time, e.row.expiry);
    assert.equal(json, JSON.stringify(e.row), `row ${i}`);
  }
  // The cases are there: nulls, a non-finite number, the block flag.
  const rows = entries.map((e) => JSON.parse(JSON.stringify(e.row)) as Record<string, unknown>);
  assert.deepEqual(
    rows.map((r) => [r['iv'], r['index_price'], r['price'], r['block']]),
    [
      [0.55, 100_050, 0.0123, false],
      [null, null, null, true],
      [0.61, 99_000, 1.5, false],
      [null, 0, 2, false],
    ],
  );
});
