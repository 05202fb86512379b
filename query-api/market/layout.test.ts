import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ColumnsResult, ResultColumn } from '#clickhouse/store.ts';
import { gridFor } from './grid.ts';
import { layOnGrid } from './layout.ts';

/** layOnGrid: a roll-up result (one row per non-empty bucket) laid on the grid, hand-computed. */

const num = (values: readonly number[], nulls?: readonly number[]): ResultColumn => ({
  kind: 'number',
  values: Float64Array.from(values),
  nulls: nulls === undefined ? null : Uint8Array.from(nulls),
});

const result = (columns: Record<string, ResultColumn>): ColumnsResult => {
  const first = Object.values(columns)[0];
  const rows = first === undefined ? 0 : first.kind === 'bytes' ? first.starts.length : first.values.length;
  return { names: Object.keys(columns), rows, columns };
};

// 1h grid of 4 buckets: 00:00 … 03:00 on 2026-01-01 (now = 03:30).
const H0 = Date.UTC(2026, 0, 1) / 1000;
const grid = gridFor('1h', 4, (H0 + 3.5 * 3600) * 1000);

test('every bucket filled: numbers in grid order, metadata from the rows on the grid', () => {
  const res = result({
    t: num([H0, H0 + 3600, H0 + 7200, H0 + 10800, H0 + 14400]), // the last row is past the grid: ignored
    v: num([1.5, 2, -3.25, 4e-9, 99]),
    last_ms: num([1, 5, 3, 4, 999]),
    venue_mask: num([1, 2, 0, 8, 512]),
  });
  const s = layOnGrid(grid, res, { fields: { v: 'v' }, lastMs: 'last_ms', venueMask: 'venue_mask' });
  assert.deepEqual(s.columns.v, [1.5, 2, -3.25, 4e-9]);
  assert.equal(s.coverage, 4);
  assert.equal(s.firstMs, H0 * 1000);
  assert.equal(s.lastMs, 5);
  assert.deepEqual(s.sources, ['binance', 'bybit', 'deribit']);
});

test('missing buckets, NULL and non-finite values are null; off-grid rows are dropped', () => {
  const res = result({
    t: num([H0 - 3600, H0, H0 + 1800, H0 + 7200, H0 + 10800]), // before the grid; on; not a bucket start; on; on
    v: num([7, 1, 8, 0, Number.POSITIVE_INFINITY]),
    w: num([7, 10, 8, 0, 30], [0, 0, 0, 1, 0]),
    last_ms: num([9, 1, 9, 2, 3]),
  });
  const s = layOnGrid(grid, res, { fields: { v: 'v', w: 'w' }, lastMs: 'last_ms' });
  assert.deepEqual(s.columns.v, [1, null, 0, null]);
  assert.deepEqual(s.columns.w, [10, null, null, 30]);
  assert.equal(s.coverage, 3);
  assert.equal(s.lastMs, 3);
  assert.deepEqual(s.sources, []);
});

test('`present` keeps only the rows whose count is > 0; venue lists are merged and sorted', () => {
  const res = result({
    t: num([H0, H0 + 3600, H0 + 7200]),
    n: num([2, 0, 1]),
    v: num([10, 20, 30]),
    last_ms: num([4, 8, 6]),
    src: { kind: 'string', values: ['okx,bybit', 'deribit', 'okx'] },
  });
  const s = layOnGrid(grid, res, { fields: { v: 'v', venue_count: 'n' }, lastMs: 'last_ms', venues: 'src', present: 'n' });
  assert.deepEqual(s.columns.v, [10, null, 30, null]);
  assert.deepEqual(s.columns.venue_count, [2, null, 1, null]);
  assert.equal(s.coverage, 2);
  assert.equal(s.lastMs, 6);
  assert.deepEqual(s.sources, ['bybit', 'okx']);
});

test('an empty result is an all-null series', () => {
  const s = layOnGrid(grid, result({ t: num([]), v: num([]), last_ms: num([]) }), { fields: { v: 'v' }, lastMs: 'last_ms' });
  assert.deepEqual(s.columns.v, [null, null, null, null]);
  assert.deepEqual([s.coverage, s.firstMs, s.lastMs, s.sources], [0, null, null, []]);
});
