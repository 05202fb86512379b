import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TtlCache } from './ttl-cache.ts';

function clock(start = 1_000): (() => number) & { advance(ms: number): void } {
  let now = start;
  return Object.assign(() => now, { advance: (ms: number) => void (now += ms) });
}

test('an entry is served until its lifetime ends, then loaded again', async () => {
  const c = clock();
  const cache = new TtlCache<number>({ ttlMs: 30_000, clock: c });
  let loads = 0;
  const load = async () => ++loads;
  assert.equal(await cache.get('k', load), 1);
  c.advance(29_999);
  assert.equal(await cache.get('k', load), 1);
  c.advance(1);
  assert.equal(await cache.get('k', load), 2);
  assert.equal(loads, 2);
});

test('concurrent gets share one load; lookups are reported as miss, shared, hit', async () => {
  const seen: string[] = [];
  const cache = new TtlCache<string>({ ttlMs: 1000, clock: clock(), onLookup: (r) => seen.push(r) });
  let loads = 0;
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => (release = r));
  const load = async () => {
    loads++;
    await gate;
    return 'v';
  };
  const a = cache.get('k', load);
  const b = cache.get('k', load);
  release();
  assert.deepEqual(await Promise.all([a, b]), ['v', 'v']);
  assert.equal(await cache.get('k', load), 'v');
  assert.equal(loads, 1);
  assert.deepEqual(seen, ['miss', 'shared', 'hit']);
});

test('a failed load is not cached; a value refused by cacheable is returned but not stored', async () => {
  const cache = new TtlCache<number>({ ttlMs: 1000, clock: clock(), cacheable: (v) => v > 0 });
  await assert.rejects(
    cache.get('k', async () => Promise.reject(new Error('boom'))),
    /boom/,
  );
  assert.equal(await cache.get('k', async () => 0), 0);
  assert.equal(cache.size, 0);
  assert.equal(await cache.get('k', async () => 5), 5);
  assert.equal(await cache.get('k', async () => 6), 5);
});

test('ttl 0 stores nothing', async () => {
  const cache = new TtlCache<number>({ ttlMs: 0, clock: clock() });
  let loads = 0;
  await cache.get('k', async () => ++loads);
  await cache.get('k', async () => ++loads);
  assert.equal(loads, 2);
  assert.equal(cache.size, 0);
});

test('the weight bound evicts the oldest stored entries first and never stores an oversized value', async () => {
  const cache = new TtlCache<number[]>({ ttlMs: 60_000, clock: clock(), maxWeight: 10, weigh: (v) => v.length });
  await cache.get('a', async () => [1, 2, 3, 4]);
  await cache.get('b', async () => [1, 2, 3, 4]);
  assert.equal(cache.totalWeight, 8);
  await cache.get('c', async () => [1, 2, 3]); // 11 > 10: 'a' goes
  assert.equal(cache.size, 2);
  assert.equal(cache.totalWeight, 7);
  let reloaded = false;
  await cache.get('a', async () => ((reloaded = true), [9]));
  assert.ok(reloaded, 'a was evicted');
  await cache.get('huge', async () => new Array<number>(11).fill(0));
  assert.equal(cache.totalWeight, 8, 'an entry heavier than the bound is not stored and evicts nothing');
  assert.equal(cache.size, 3);
});

test('without a bound every entry is kept until it expires', async () => {
  const c = clock();
  const cache = new TtlCache<number>({ ttlMs: 500, clock: c });
  assert.equal(await cache.get('k', async () => 1), 1);
  assert.equal(await cache.get('k', async () => 2), 1);
  c.advance(500);
  assert.equal(await cache.get('k', async () => 3), 3);
});

test('a store drops the expired entries (oldest first), not only those beyond the bound', async () => {
  const c = clock();
  const cache = new TtlCache<number>({ ttlMs: 60_000, clock: c, maxWeight: 64 });
  await cache.get('t0', async () => 0);
  c.advance(30_000);
  await cache.get('t1', async () => 1);
  c.advance(30_000); // t0 is 60 s old: expired
  await cache.get('t2', async () => 2);
  assert.equal(cache.size, 2, 't0 dropped by the store of t2');
  assert.equal(cache.totalWeight, 2);
  assert.equal(await cache.get('t1', async () => 9), 1, 't1 (30 s old) still served');
});
