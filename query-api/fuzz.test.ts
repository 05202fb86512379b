import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SnapshotCache } from './gex/snapshot-cache.ts';
import { fuzzApp, injectionSweep, INJECTIONS, registeredPaths, routeParams } from './testing/fuzz.ts';
import { C, seedGex } from './testing/gex-fixture.ts';
import { migratedStore, testApp, testClock, userWithKey } from './testing/harness.ts';
import { loadBundledReferenceData } from '#ingest/reference/bundled.ts';

test('fuzz: every parameter of every route with injection payloads, then >= 50,000 random/malformed requests: no 5xx, no internals, error envelope on every 4xx', async () => {
  const t = await migratedStore();
  await seedGex(t.store);
  await loadBundledReferenceData(t.store);
  const cache = new SnapshotCache(t.store, { pollMs: 0 });
  await cache.refresh();
  const key = await userWithKey(t.store, { userId: 'fuzz', plan: 'enterprise' });
  // The product's app: discovery, market, reference and GEX route families (as the api role builds it).
  const app = await testApp(t.store, { healthPerIpPerMinute: 1_000_000 }, { clock: testClock(C + 10_000), snapshots: cache });
  try {
    const routes = [
      ...registeredPaths(app),
      '/v2/nope',
      '/v2/gex',
      '/v2/gex/levels/x',
      '/v2/docs/json',
      '/v2/options/greeks/gamma',
      '/v2/options/greeks/vanna',
      '/v2/options/greeks/surfaces/charm',
    ];
    const expected = [
      '/v2/health',
      '/v2/meta',
      '/v2/endpoints',
      '/v2/changelog',
      '/v2/symbols',
      '/v2/expiries',
      '/v2/status',
      '/v2/openapi.json',
      '/v2/gex/levels',
      '/v2/gex/gamma-flow',
      '/v2/multi/gex/levels',
      '/v2/gex/max-pain',
      '/v2/gex/strike-expiry-heatmap',
      '/v2/gex/stress-history',
      '/v2/gex/level-study',
      '/v2/etf/flows',
      '/v2/cot/summary',
      '/v2/cot/markets',
      '/v2/cot/instrument',
      '/v2/filings/holders',
      '/v2/market/candles',
      '/v2/market/open-interest',
      '/v2/market/bundle',
      '/v2/tape',
      '/v2/replay',
      '/v2/tape/recent',
      '/v2/tape/strike-heat',
      '/v2/tape/flow-by-strike',
      '/v2/options/premium-tide',
      '/v2/options/pcr',
      '/v2/options/range',
      '/v2/options/greeks/{greek}',
      '/v2/options/greeks/surfaces/{greek}',
      '/v2/options/greeks/3d/surface',
    ];
    for (const p of expected) assert.ok(routes.includes(p), `route ${p} is registered and fuzzed`);
    const params = routeParams(app);
    const paramCount = [...params.values()].reduce((a, p) => a + p.length, 0);
    assert.ok(paramCount >= 60, `${paramCount} query parameters found`);
    const t0 = performance.now();
    const sweep = await injectionSweep(app, key);
    process.stderr.write(
      `fuzz: injection sweep ${sweep.requests} requests (${paramCount} parameters x ${INJECTIONS.length} payloads + path parameters) in ${((performance.now() - t0) / 1000).toFixed(1)} s; statuses ${JSON.stringify(Object.fromEntries([...sweep.counts].sort()))}\n`,
    );
    assert.ok(sweep.requests >= paramCount * INJECTIONS.length);
    const n = Number(process.env['FUZZ_REQUESTS'] ?? 50_000);
    const { counts, seconds } = await fuzzApp(app, key, routes, n, 20261012);
    process.stderr.write(
      `fuzz: ${n} requests over ${routes.length} paths in ${seconds.toFixed(1)} s; statuses ${JSON.stringify(Object.fromEntries([...counts].sort()))}\n`,
    );
    assert.ok((counts.get(200) ?? 0) > n / 10);
    assert.ok((counts.get(401) ?? 0) > n / 20);
    assert.ok((counts.get(422) ?? 0) > n / 100);
    assert.ok((counts.get(404) ?? 0) > n / 1000);
  } finally {
    await app.close();
    await t.dispose();
  }
});
