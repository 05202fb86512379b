import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { createStore } from '#clickhouse/store.ts';
import { assertError, assertOk } from './testing/assertions.ts';
import { LEAK } from './testing/fuzz.ts';
import { migratedStore, testApp, userWithKey } from './testing/harness.ts';

test('embedded store closed under the running app: 503 UPSTREAM_ERROR, health unhealthy', async () => {
  const t = await migratedStore();
  const key = await userWithKey(t.store, { userId: 'down', plan: 'legacy' });
  const app = await testApp(t.store, {}, { cacheHealth: () => ({ ok: false, age_seconds: null }) });
  assertOk(await app.inject({ url: '/v2/changelog', headers: { 'x-api-key': key } }));
  await t.store.close();
  for (const url of ['/v2/symbols', '/v2/status', '/v2/expiries', '/v2/meta']) {
    const res = await app.inject({ url, headers: { 'x-api-key': key } });
    const body = assertError(res, 503, 'UPSTREAM_ERROR');
    assert.doesNotMatch(body.error.message, /chdb|clickhouse|closed/i);
    assert.doesNotMatch(res.body, LEAK, 'no internals anywhere in the body');
    assert.equal(res.headers['x-ratelimit-limit'], '120');
  }
  // A replay fails before its first byte: answered as any route (the stream's headers are not sent yet).
  const to = new Date(Date.now() - 60_000).toISOString();
  const from = new Date(Date.now() - 3_600_000).toISOString();
  const replay = await app.inject({ url: `/v2/replay?channels=tape.BTCUSDT&from=${from}&to=${to}`, headers: { 'x-api-key': key } });
  assert.doesNotMatch(assertError(replay, 503, 'UPSTREAM_ERROR').error.message, /chdb|clickhouse|closed/i);
  assert.doesNotMatch(replay.body, LEAK);
  // Static routes keep working from the cached accounts.
  assertOk(await app.inject({ url: '/v2/changelog', headers: { 'x-api-key': key } }));
  const health = assertOk<{ status: string; database: boolean; cache: boolean }>(await app.inject({ url: '/v2/health' }));
  assert.deepEqual([health.data.status, health.data.database, health.data.cache], ['unhealthy', false, false]);
  await app.close();
  await t.dispose();
});

test('ClickHouse server unreachable: 503 UPSTREAM_ERROR on authenticated routes, degraded health', async () => {
  const port = await new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
  const store = await createStore({ url: `http://127.0.0.1:${port}`, dataPath: '/nonexistent', requestTimeoutMs: 2000 });
  const app = await testApp(store);
  const res = await app.inject({ url: '/v2/meta', headers: { 'x-api-key': `gex_live_${'a'.repeat(32)}` } });
  assertError(res, 503, 'UPSTREAM_ERROR');
  const health = assertOk<{ status: string; database: boolean }>(await app.inject({ url: '/v2/health' }));
  assert.deepEqual([health.data.status, health.data.database], ['degraded', false]);
  await app.close();
  await store.close();
});
