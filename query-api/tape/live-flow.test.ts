import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FlowCell } from '#processors/analytics/flow-by-strike.ts';
import { utcDate } from './filter.ts';
import { hashOf, LiveFlowBook, type FlowQuery, type LiveTrade } from './live-flow.ts';

const NOW = Date.UTC(2026, 2, 10, 12, 0);
const TODAY = Date.UTC(2026, 2, 10);
const E0 = Date.UTC(2026, 2, 10, 8, 0); // expires today 08:00: still live today (expiry date = today)
const E1 = Date.UTC(2026, 2, 13, 8, 0);
const E2 = Date.UTC(2026, 2, 27, 8, 0);
const EXPIRED = Date.UTC(2026, 2, 9, 8, 0);

const trade = (id: string, o: Partial<LiveTrade> = {}): LiveTrade => ({
  ts: NOW - 1_000,
  expiry: E1,
  venue: 'deribit',
  id,
  strike: 100_000,
  type: 'call',
  side: 'buy',
  size: 1,
  premium: 1_000,
  ...o,
});
const ALL: FlowQuery = { nowMs: NOW, expiryDates: [], minPremiumUsd: 0, venues: [] };
const byKey = (cells: readonly FlowCell[]): FlowCell[] =>
  [...cells].sort(
    (a, b) => a.strike - b.strike || a.type.localeCompare(b.type) || a.side.localeCompare(b.side) || a.venue.localeCompare(b.venue),
  );

/** readFlowCells' statement over the distinct trades (last copy of each key), the obvious way. */
function oracle(trades: readonly LiveTrade[], q: FlowQuery): FlowCell[] {
  const last = new Map<string, LiveTrade>();
  for (const t of trades) last.set(`${t.expiry}|${t.venue}|${t.id}`, t);
  const todayStart = Math.floor(q.nowMs / 86_400_000) * 86_400_000;
  const cells = new Map<
    string,
    { strike: number; type: string; side: string; venue: string; size: number; premium: number; trades: number }
  >();
  for (const t of last.values()) {
    if (
      t.ts > q.nowMs ||
      t.expiry < todayStart ||
      !Number.isFinite(t.size) ||
      !Number.isFinite(t.premium) ||
      !(t.premium >= q.minPremiumUsd)
    )
      continue;
    if (q.expiryDates.length > 0 && !q.expiryDates.includes(utcDate(t.expiry))) continue;
    if (q.venues.length > 0 && !q.venues.includes(t.venue)) continue;
    const k = `${t.strike}|${t.type}|${t.side}|${t.venue}`;
    const c = cells.get(k) ?? { strike: t.strike, type: t.type, side: t.side, venue: t.venue, size: 0, premium: 0, trades: 0 };
    c.size += t.size;
    c.premium += t.premium;
    c.trades += 1;
    cells.set(k, c);
  }
  return byKey([...cells.values()]);
}

function assertCells(got: readonly FlowCell[], want: readonly FlowCell[], what: string): void {
  const g = byKey(got);
  assert.equal(g.length, want.length, what);
  g.forEach((c, i) => {
    const w = want[i] as FlowCell;
    assert.deepEqual([c.strike, c.type, c.side, c.venue, c.trades], [w.strike, w.type, w.side, w.venue, w.trades], what);
    assert.ok(Math.abs(c.size - w.size) <= 1e-12 * Math.max(1, Math.abs(w.size)), `${what}: size ${c.size} vs ${w.size}`);
    assert.ok(Math.abs(c.premium - w.premium) <= 1e-12 * Math.max(1, Math.abs(w.premium)), `${what}: premium ${c.premium} vs ${w.premium}`);
  });
}

test('hand-computed cells: quadrants per strike and venue, the filters, a redelivery replaces', () => {
  const book = new LiveFlowBook(100);
  book.add(trade('a', { size: 2, premium: 2_000 }));
  book.add(trade('b', { size: 0.5, premium: 400, side: 'sell' }));
  book.add(trade('c', { size: 3, premium: 600, venue: 'okx' }));
  book.add(trade('d', { size: 1, premium: 5_000, type: 'put', strike: 90_000, expiry: E2 }));
  book.add(trade('e', { expiry: E0, size: 4, premium: 100 })); // expires today: live
  book.add(trade('f', { expiry: EXPIRED })); // expired yesterday: not live
  book.add(trade('g', { ts: NOW + 1 })); // after now
  book.add(trade('h', { premium: Number.NaN })); // non-finite: excluded
  assert.equal(book.add(trade('a', { size: 2.5, premium: 2_500 })), false, 'a redelivery (a later copy) replaces');
  assert.deepEqual(byKey(book.cells(ALL)), [
    { strike: 90_000, type: 'put', side: 'buy', venue: 'deribit', size: 1, premium: 5_000, trades: 1 },
    // a (2.5 coins, 2,500 USD) + e (4, 100): 6.5 coins, 2,600 USD, 2 trades
    { strike: 100_000, type: 'call', side: 'buy', venue: 'deribit', size: 6.5, premium: 2_600, trades: 2 },
    { strike: 100_000, type: 'call', side: 'buy', venue: 'okx', size: 3, premium: 600, trades: 1 },
    { strike: 100_000, type: 'call', side: 'sell', venue: 'deribit', size: 0.5, premium: 400, trades: 1 },
  ]);
  // premium ≥ 600 keeps a, c, d; okx only keeps c; the 27 March expiry keeps d
  assert.deepEqual(
    byKey(book.cells({ ...ALL, minPremiumUsd: 600 })).map((c) => c.trades),
    [1, 1, 1],
  );
  assert.deepEqual(
    book.cells({ ...ALL, venues: ['okx'] }).map((c) => c.size),
    [3],
  );
  assert.deepEqual(
    book.cells({ ...ALL, expiryDates: ['2026-03-27'] }).map((c) => c.premium),
    [5_000],
  );
  assert.deepEqual(
    book.cells({ ...ALL, expiryDates: [utcDate(E0)] }).map((c) => c.size),
    [4],
  );
});

test('dropExpired removes the dead contracts and keeps the rest addressable', () => {
  const book = new LiveFlowBook(100);
  book.add(trade('x', { expiry: EXPIRED }));
  book.add(trade('y', { expiry: E1 }));
  book.add(trade('z', { expiry: E2 }));
  assert.equal(book.dropExpired(TODAY), 1);
  assert.equal(book.count, 2);
  assert.ok(book.has(E2, 'deribit', 'z') && !book.has(EXPIRED, 'deribit', 'x'));
  assert.equal(book.add(trade('z', { expiry: E2, size: 9 })), false, 'still deduplicated after the compaction');
  // y (1 coin) and z (9): one cell (same strike, type, side, venue)
  assert.deepEqual(
    book.cells(ALL).map((c) => [c.size, c.trades]),
    [[10, 2]],
  );
});

test('capacity: a trade beyond it marks the book full until expired contracts make room', () => {
  const book = new LiveFlowBook(2);
  book.add(trade('1', { expiry: EXPIRED }));
  book.add(trade('2'));
  assert.equal(book.full, false);
  assert.equal(book.add(trade('3')), false);
  assert.equal(book.full, true);
  book.dropExpired(TODAY);
  assert.equal(book.full, false);
});

test('random books: cells equal the oracle for random queries', () => {
  let seed = 11;
  const rnd = (): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  for (let round = 0; round < 20; round++) {
    const book = new LiveFlowBook(10_000);
    const all: LiveTrade[] = [];
    for (let i = 0; i < 2_000; i++) {
      // ids collide across rounds of i: redeliveries with new content, and the same id on another venue/expiry
      const t = trade(`id${Math.floor(rnd() * 1_500)}`, {
        ts: NOW - Math.floor(rnd() * 86_400_000) + (rnd() < 0.05 ? 120_000 : 0),
        expiry: pick([EXPIRED, E0, E1, E2]),
        venue: pick(['binance', 'bybit', 'deribit', 'okx']),
        strike: 80_000 + 5_000 * Math.floor(rnd() * 8),
        type: pick(['call', 'put']),
        side: pick(['buy', 'sell']),
        size: Math.round(rnd() * 1_000) / 100,
        premium: rnd() < 0.01 ? Number.POSITIVE_INFINITY : Math.round(rnd() * 1e6) / 100,
      });
      all.push(t);
      book.add(t);
    }
    for (let q = 0; q < 10; q++) {
      const query: FlowQuery = {
        nowMs: NOW - (rnd() < 0.3 ? Math.floor(rnd() * 3_600_000) : 0),
        minPremiumUsd: rnd() < 0.5 ? Math.round(rnd() * 5_000) : 0,
        venues: rnd() < 0.3 ? [pick(['okx', 'deribit']), 'bybit'] : [],
        expiryDates: rnd() < 0.3 ? [utcDate(pick([E0, E1, E2]))] : [],
      };
      assertCells(book.cells(query), oracle(all, query), `round ${round} query ${q}`);
    }
  }
});

test('two keys in one hash bucket are held apart, each replaced by its own later copy', () => {
  // find two ids with the same 31-bit hash (birthday bound: ~50,000 tries)
  const seen = new Map<number, string>();
  let pair: [string, string] | null = null;
  for (let i = 0; pair === null; i++) {
    const id = `deribit:${i}`;
    const h = hashOf(E1, 0, id);
    const other = seen.get(h);
    if (other !== undefined) pair = [other, id];
    else seen.set(h, id);
  }
  const [a, b] = pair;
  assert.equal(hashOf(E1, 0, a), hashOf(E1, 0, b));
  const book = new LiveFlowBook(10);
  assert.equal(book.add(trade(a, { size: 1 })), true);
  assert.equal(book.add(trade(b, { size: 2 })), true, 'the second key of the bucket is new');
  assert.equal(book.add(trade(a, { size: 4 })), false);
  assert.equal(book.add(trade(b, { size: 8 })), false);
  assert.equal(book.count, 2);
  assert.deepEqual(
    book.cells(ALL).map((c) => [c.size, c.trades]),
    [[12, 2]],
  );
  assert.ok(book.has(E1, 'deribit', a) && book.has(E1, 'deribit', b) && !book.has(E2, 'deribit', a));
});
