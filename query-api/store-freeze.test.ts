import { test } from 'node:test';
import { rmSync } from 'node:fs';
import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { startClickHouseHttp } from '#clickhouse/http-endpoint.ts';
import { migrate } from '#clickhouse/migrate.ts';
import { createStore } from '#clickhouse/store.ts';
import { tempDataPath } from '#clickhouse/testing/temp-store.ts';
import { METRIC } from '#platform/metrics/names.ts';
import { assertError, assertOk } from './testing/assertions.ts';
import { testApp, userWithKey } from './testing/harness.ts';
import { metricSample } from './testing/metric-sample.ts';
import { metricsRegistry } from '#platform/metrics/registry.ts';

/**
 * A TCP proxy in front of the store's ClickHouse HTTP endpoint that can freeze: connections stay open and accept
 * bytes but nothing is forwarded either way (what a SIGSTOPped store process or a black-holed network looks like).
 */
async function freezableProxy(targetPort: number): Promise<{ port: number; freeze(): void; thaw(): void; close(): Promise<void> }> {
  let frozen = false;
  const links: { client: Socket; upstream: Socket }[] = [];
  const link = (l: { client: Socket; upstream: Socket }): void => {
    l.client.pipe(l.upstream);
    l.upstream.pipe(l.client);
  };
  const unlink = (l: { client: Socket; upstream: Socket }): void => {
    l.client.unpipe(l.upstream);
    l.upstream.unpipe(l.client);
    l.client.pause();
    l.upstream.pause();
  };
  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    const l = { client, upstream };
    links.push(l);
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop);
    upstream.on('error', drop);
    client.on('close', drop);
    upstream.on('close', drop);
    if (frozen) unlink(l);
    else link(l);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    freeze() {
      frozen = true;
      for (const l of links) unlink(l);
    },
    thaw() {
      frozen = false;
      for (const l of links) link(l);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const l of links) {
          l.client.destroy();
          l.upstream.destroy();
        }
        server.close(() => resolve());
      }),
  };
}

test('a frozen store: every request answered within 3 s, fast 503 + Retry-After once the circuit opens, recovery on thaw', async () => {
  const dataPath = tempDataPath();
  const embedded = await createStore({ dataPath });
  await migrate(embedded);
  const key = await userWithKey(embedded, { userId: 'freeze', plan: 'enterprise' });
  const endpoint = await startClickHouseHttp({ dataPath, database: 'default', host: '127.0.0.1', port: 0, adminToken: 'freeze-admin' });
  const proxy = await freezableProxy(endpoint.port);
  const store = await createStore({
    url: `http://127.0.0.1:${proxy.port}`,
    username: 'admin',
    password: 'freeze-admin',
    dataPath,
    requestTimeoutMs: 30_000,
  });
  // discoveryCacheMs 0: every discovery request reads the store (with the cache on, they would be answered from memory).
  const app = await testApp(store, { storeReadTimeoutMs: 1_500, storeBreakerFailures: 2, storeBreakerProbeMs: 300, discoveryCacheMs: 0 });
  const get = async (url: string) => {
    const started = performance.now();
    const res = await app.inject({ url, headers: { 'x-api-key': key } });
    return { res, ms: performance.now() - started };
  };
  const opened = await metricSample(METRIC.apiStoreBreakerTransitions, 'to="open"');
  try {
    assertOk((await get('/v2/symbols')).res);
    proxy.freeze();
    const slow: number[] = [];
    for (let i = 0; i < 2; i++) {
      const { res, ms } = await get('/v2/status');
      assertError(res, 503, 'UPSTREAM_ERROR');
      assert.equal(res.headers['retry-after'], '1');
      slow.push(ms);
    }
    for (const ms of slow) assert.ok(ms >= 1_400 && ms < 3_000, `a read that got no answer failed at its deadline (${Math.round(ms)} ms)`);
    const fast: number[] = [];
    for (const url of ['/v2/status', '/v2/symbols', '/v2/expiries?symbol=BTCUSDT', '/v2/meta']) {
      const { res, ms } = await get(url);
      const body = assertError(res, 503, 'UPSTREAM_ERROR');
      assert.doesNotMatch(body.error.message, /circuit|clickhouse|chdb/i, 'no internals');
      assert.ok(Number(res.headers['retry-after']) >= 1);
      fast.push(ms);
    }
    // At once: well under the 1.5 s deadline the reads above waited for (the bound leaves room for a busy machine).
    assert.ok(Math.max(...fast) < 750, `open circuit: answered at once (${fast.map(Math.round).join(', ')} ms)`);
    assert.equal(await metricSample(METRIC.apiStoreBreakerTransitions, 'to="open"'), opened + 1);
    assert.match(
      await metricsRegistry.getSingleMetricAsString(METRIC.apiStoreBreakerOpen),
      /^gex_api_store_breaker_open_ratio(\{[^}]*\})? 1$/m,
    );
    // Static routes keep answering from memory.
    assertOk((await get('/v2/changelog')).res);

    proxy.thaw();
    const thawed = Date.now();
    let answered = false;
    while (!answered && Date.now() - thawed < 10_000) {
      const { res } = await get('/v2/status');
      answered = res.statusCode === 200;
      if (!answered) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(answered, 'served again once a probe answered');
    assert.ok(Date.now() - thawed < 3_000, `recovered ${Date.now() - thawed} ms after the thaw`);
    assert.match(
      await metricsRegistry.getSingleMetricAsString(METRIC.apiStoreBreakerOpen),
      /^gex_api_store_breaker_open_ratio(\{[^}]*\})? 0$/m,
    );
  } finally {
    await app.close();
    await store.close();
    await proxy.close();
    await endpoint.close();
    await embedded.close();
    rmSync(dataPath, { recursive: true, force: true });
  }
});
