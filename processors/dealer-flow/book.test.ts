import { test } from 'node:test';
import assert from 'node:assert/strict';
import { coinsOf, DealerBook, inventoryMap } from './book.ts';
import type { NanoRow } from './book.ts';

const row = (instrument: string, expiry: number, nano: string, trades: number): NanoRow => ({
  venue: 'deribit',
  instrument,
  expiry_ms: expiry,
  nano,
  trade_count: trades,
});

test('book: cumulative exact sums, changed entries, expiry drop, coins from 1e-9 coin', () => {
  const book = new DealerBook(0);
  // (0, 10]: taker buys 0.1 + 0.2 of A (dealer −0.3 = −300,000,000 nano); taker sells 2 of B (dealer +2).
  const c1 = book.advance(10, [row('A', 100, '-300000000', 2), row('B', 20, '2000000000', 1)]);
  assert.deepEqual(
    c1.map((e) => [e.instrument, e.nano, e.trades]),
    [
      ['A', -300000000n, 2],
      ['B', 2000000000n, 1],
    ],
  );
  // 0.1 + 0.2 in floating point is 0.30000000000000004; the book gives exactly −0.3.
  assert.equal(coinsOf(book.all()[0]?.nano ?? 0n), -0.3);
  // (10, 20]: A again (+0.3 back to 0), B expires at 20 and is dropped (not reported as changed).
  const c2 = book.advance(20, [row('A', 100, '300000000', 1), row('B', 20, '5', 1)]);
  assert.deepEqual(
    c2.map((e) => [e.instrument, e.nano, e.trades]),
    [['A', 0n, 3]],
  );
  assert.deepEqual(
    book.all().map((e) => e.instrument),
    ['A'],
  );
  assert.equal(book.at, 20);
  assert.equal(Object.is(coinsOf(0n), 0), true);
  // Two expiries under one name are summed per venue|instrument.
  assert.deepEqual(
    [...inventoryMap([...book.all(), { venue: 'deribit', instrument: 'A', expiry: 200, nano: 1_500_000_000n, trades: 1 }])],
    [['deribit|A', 1.5]],
  );
});
