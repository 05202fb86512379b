import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { MarketEvent } from '#schemas/events.ts';
import { IdWindow, RecentIds, idHash } from './recent-ids.ts';

const hashOf = (s: string): [number, number] => {
  const out = new Uint32Array(2);
  idHash(s, out);
  return [out[0] as number, out[1] as number];
};

describe('idHash', () => {
  test('equal strings hash alike, whatever way they were built; hi is never 0', () => {
    const built = ['deribit', 'BTC-27JUN25-100000-C', '12345'].join(':');
    assert.deepEqual(hashOf(built), hashOf(`deribit:${'BTC-27JUN25-100000-C'}:${12_345}`));
    for (const s of ['', 'a', 'é', '\u{1F600}']) assert.notEqual(hashOf(s)[0], 0);
  });
  test('200,000 trade-like ids that differ in one character or in length give 200,000 distinct 64-bit hashes', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 100_000; i++) {
      for (const id of [`okx:BTC-USD-250627-100000-C:${i}`, `okx:BTC-USD-250627-100000-C:0${i}`]) seen.add(hashOf(id).join(','));
    }
    assert.equal(seen.size, 200_000);
  });
  test('each lane alone spreads ids over a table: 1,024 ids fill at least 600 of 1,024 slots by either lane', () => {
    for (const lane of [0, 1] as const) {
      const slots = new Set<number>();
      for (let i = 0; i < 1024; i++) slots.add((hashOf(`bybit:ETH-${i}`)[lane] as number) & 1023);
      assert.ok(slots.size >= 600, `lane ${lane}: ${slots.size} slots`);
    }
  });
});

describe('IdWindow', () => {
  test('answers as a set of the newest `capacity` ids, through many wraps and removals (against a plain model)', () => {
    for (const capacity of [1, 2, 7, 64]) {
      const w = new IdWindow(capacity);
      const model: string[] = [];
      let state = 12_345;
      const rand = (n: number): number => {
        state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
        return state % n;
      };
      for (let step = 0; step < 20_000; step++) {
        const id = `id${rand(3 * capacity)}`;
        const [hi, lo] = hashOf(id);
        const expected = model.includes(id);
        assert.equal(w.seenOrAdd(hi, lo), expected, `capacity ${capacity}, step ${step}, ${id}`);
        if (!expected) {
          model.push(id);
          if (model.length > capacity) model.shift();
        }
        assert.equal(w.size, model.length);
      }
    }
  });
  test('probe runs that wrap the end of the table and share a home slot stay reachable after removals', () => {
    // Hashes chosen by hand: the table of capacity 4 has 16 slots; lo 15 and 31 both start at slot 15 and wrap to 0.
    const w = new IdWindow(4);
    for (const lo of [15, 31, 47, 0]) assert.equal(w.seenOrAdd(1, lo), false);
    // The fifth forgets lo 15 (the oldest): the run 15 -> 0 -> 1 -> 2 shifts back, 31, 47 and 0 are still found.
    assert.equal(w.seenOrAdd(2, 14), false);
    assert.equal(w.seenOrAdd(1, 31), true);
    assert.equal(w.seenOrAdd(1, 47), true);
    assert.equal(w.seenOrAdd(1, 0), true);
    assert.equal(w.seenOrAdd(2, 14), true);
    assert.equal(w.seenOrAdd(1, 15), false, 'lo 15 was forgotten');
    assert.equal(w.size, 4);
  });
});

describe('RecentIds.admit', () => {
  const trade = (id: string): MarketEvent => ({
    type: 'option_trade',
    event: {
      venue: 'deribit',
      symbol: 'BTCUSDT',
      ts: 1,
      receivedAt: 1,
      id,
      instrument: 'BTC-27JUN25-100000-C',
      tradeId: id,
      side: 'buy',
      price: 0.01,
      size: 1,
      strike: 100_000,
      expiry: 2,
      optionType: 'call',
      priceCurrency: 'BTC',
      priceUsd: 1000,
      premiumUsd: 1000,
      iv: null,
      indexPrice: null,
      underlyingPrice: null,
      block: false,
    },
  });
  test('a frame without duplicates is handed on as it is; one with duplicates as a copy without them, in order', () => {
    const r = new RecentIds();
    const first = [trade('a'), trade('b')];
    assert.equal(r.admit(first).fresh, first, 'no copy');
    const second = [trade('b'), trade('c'), trade('a'), trade('d')];
    const { fresh, duplicates } = r.admit(second);
    assert.deepEqual([fresh.map((e) => e.event.id), duplicates], [['c', 'd'], 2]);
    assert.deepEqual(
      second.map((e) => e.event.id),
      ['b', 'c', 'a', 'd'],
      'the frame itself is left as it was',
    );
  });
});
