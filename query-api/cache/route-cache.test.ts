import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { optionTradeRow } from '#clickhouse/rows.ts';
import { optionTrade } from '#clickhouse/testing/fixtures.ts';
import { loadReferenceFiles, type SourceFile } from '#ingest/reference/load.ts';
import { METRIC } from '#platform/metrics/names.ts';
import { assertOk } from '../testing/assertions.ts';
import { migratedStore, testApp, testClock, userWithKey } from '../testing/harness.ts';
import { metricSample } from '../testing/metric-sample.ts';
import type { ApiInstance } from '../types.ts';

const fx = (name: string): SourceFile => ({
  name,
  text: readFileSync(new URL(`../../ingest/reference/fixtures/${name}`, import.meta.url), 'utf8'),
});
const MIN = 60_000;
// Near the real clock: option_trades has a TTL on the store's clock.
const NOW = Math.floor(Date.now() / MIN) * MIN - 60 * MIN;

/** The six computed routes of the route cache, one request each. */
const ROUTES: readonly (readonly [label: string, url: string])[] = [
  ['options_pcr', '/v2/options/pcr?symbol=BTCUSDT&days=2&include=exchange_breakdown'],
  ['options_range', '/v2/options/range?symbol=BTCUSDT'],
  ['options_premium_tide', '/v2/options/premium-tide?symbol=BTCUSDT&horizon=weekly'],
  ['tape_strike_heat', '/v2/tape/strike-heat?symbol=BTCUSDT&hours=6'],
  ['etf_flows', '/v2/etf/flows?asset=BTC'],
  ['filings_holders', '/v2/filings/holders?ticker=MSTR'],
];

const lookups = (route: string, result: string): Promise<number> =>
  metricSample(METRIC.apiRouteCacheLookups, `route="${route}",result="${result}"`);

describe('server cache of the computed routes (spec: about 30 s)', () => {
  let t: Awaited<ReturnType<typeof migratedStore>>;
  let app: ApiInstance;
  let key: string;
  let evalKey: string;
  const clock = testClock(NOW);

  before(async () => {
    t = await migratedStore();
    await loadReferenceFiles(t.store, 'etf', [fx('etf_flows_us_btc_usd_millions.csv')]);
    const quarter = (n: string) => [fx(`sec_13f_synthetic_${n}_primary.xml`), fx(`sec_13f_synthetic_${n}_infotable.xml`)];
    await loadReferenceFiles(t.store, '13f', [...quarter('alpha_2026q1'), ...quarter('beta_2026q1')]);
    key = await userWithKey(t.store, { userId: 'pro', plan: 'bundle_monthly' });
    evalKey = await userWithKey(t.store, { userId: 'eval', plan: 'terminal_yearly', evaluation: true });
    app = await testApp(t.store, {}, { clock });
  });
  after(async () => {
    await app.close();
    await t.dispose();
  });
  const get = (url: string, k = key) => app.inject({ method: 'GET', url, headers: { 'x-api-key': k } });

  test('each route: a repeat within 30 s is a hit with the same data (X-Cache, Age, hit/miss metric by route)', async () => {
    for (const [label, url] of ROUTES) {
      const [hits, misses] = [await lookups(label, 'hit'), await lookups(label, 'miss')];
      const first = await get(url);
      assert.equal(first.statusCode, 200, `${url}: ${first.body}`);
      assert.equal(first.headers['x-cache'], 'MISS', url);
      clock.advance(10_000);
      const second = await get(url);
      assert.equal(second.headers['x-cache'], 'HIT', url);
      assert.equal(second.headers['age'], '10', url);
      assert.deepEqual(assertOk(second).data, assertOk(first).data, url);
      const [m1, m2] = [assertOk(first).meta, assertOk(second).meta];
      assert.notEqual(m2.request_id, m1.request_id, 'per-request meta is never cached');
      assert.equal(await lookups(label, 'hit'), hits + 1, label);
      assert.equal(await lookups(label, 'miss'), misses + 1, label);
    }
  });

  test('a stored change shows once the entry is 30 s old; other parameters and plans are other entries', async () => {
    const url = '/v2/tape/strike-heat?symbol=BTCUSDT&hours=1';
    const before = assertOk<{ strikes: unknown[] }>(await get(url));
    assert.deepEqual(before.data.strikes, []);
    await t.store.insert('option_trades', [optionTradeRow({ ...optionTrade(), ts: clock() - MIN, id: 'deribit:cache:1', tradeId: 'c1' })]);
    const cached = await get(url);
    assert.equal(cached.headers['x-cache'], 'HIT');
    assert.deepEqual(assertOk<{ strikes: unknown[] }>(cached).data.strikes, [], 'within 30 s: the cached answer');
    const other = await get(`${url}&limit=5`);
    assert.equal(other.headers['x-cache'], 'MISS', 'another parameter: another entry');
    assert.equal(assertOk<{ strikes: unknown[] }>(other).data.strikes.length, 1);
    clock.advance(29_999);
    assert.equal((await get(url)).headers['x-cache'], 'HIT');
    clock.advance(1);
    const fresh = await get(url);
    assert.equal(fresh.headers['x-cache'], 'MISS', 'at 30 s the entry has expired');
    assert.equal(assertOk<{ strikes: unknown[] }>(fresh).data.strikes.length, 1);

    // The plan's history policy is part of the key: an evaluation key never gets a paid plan's wider answer.
    const paid = assertOk<{ days: unknown[] }>(await get('/v2/etf/flows?asset=BTC'));
    const evaluation = await get('/v2/etf/flows?asset=BTC', evalKey);
    assert.equal(evaluation.headers['x-cache'], 'MISS');
    const clamped = assertOk<{ days: unknown[] }>(evaluation);
    assert.ok(clamped.data.days.length < paid.data.days.length);
    assert.equal(clamped.meta['history_depth_enforced'], true);
  });
});

describe('ROUTE_CACHE_MS = 0 turns the cache off', () => {
  test('every request reads the store', async () => {
    const t = await migratedStore();
    try {
      const key = await userWithKey(t.store, { userId: 'pro', plan: 'bundle_monthly' });
      const app = await testApp(t.store, { routeCacheMs: 0 }, { clock: testClock(NOW) });
      try {
        const url = '/v2/tape/strike-heat?symbol=BTCUSDT&hours=1';
        const get = () => app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
        assert.deepEqual(assertOk<{ strikes: unknown[] }>(await get()).data.strikes, []);
        await t.store.insert('option_trades', [optionTradeRow({ ...optionTrade(), ts: NOW - MIN, id: 'deribit:off:1', tradeId: 'o1' })]);
        const second = await get();
        assert.equal(second.headers['x-cache'], 'MISS');
        assert.equal(assertOk<{ strikes: unknown[] }>(second).data.strikes.length, 1);
      } finally {
        await app.close();
      }
    } finally {
      await t.dispose();
    }
  });
});
