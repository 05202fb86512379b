import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { recordingRules } from './prometheus-files.ts';
import { dashboardFiles, dashboardQueries, withAllVariables } from './grafana-files.ts';
import { seriesCount, startDemo, startPrometheus, stop } from './scrape-harness.ts';
import { connectClient, type TestClient } from '#query-api/ws/testing/client.ts';

const DEADLINE_MS = 75_000;

/** A WebSocket session subscribed to levels and tape (the feed panels and gex_ws_* rules need one). */
async function wsTraffic(apiUrl: string, key: string): Promise<TestClient> {
  const client = await connectClient(`${apiUrl.replace('http:', 'ws:')}/v2/ws`, key);
  await client.request(1, 'public/subscribe', { channels: ['levels.BTCUSDT', 'tape.BTCUSDT'] });
  return client;
}

/** Traffic for the API panels: answered, not found, invalid (422) and a market read (cache lookups). */
async function apiTraffic(apiUrl: string, key: string): Promise<void> {
  const headers = { 'x-api-key': key };
  for (const path of [
    '/v2/health',
    '/v2/meta',
    '/v2/gex/levels?symbol=BTCUSDT',
    '/v2/market/candles?symbol=BTCUSDT&interval=1m&hours=1',
    '/v2/options/pcr?symbol=BTCUSDT&days=1',
    '/v2/options/pcr?symbol=BTCUSDT&days=1',
    '/v2/gex/levels?symbol=NOPE',
    '/v2/nope',
  ]) {
    await fetch(`${apiUrl}${path}`, { headers }).then((r) => r.arrayBuffer());
  }
}

test('a real Prometheus scraping the demo: every recording rule and every dashboard query returns data', { timeout: 150_000 }, async () => {
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'gex-scrape-'));
  const demo = await startDemo(join(dir, 'data'), {
    SNAPSHOT_INTERVAL_MS: '2000',
    SYMBOLS: 'BTCUSDT,ETHUSDT',
    VENUES: 'deribit,bybit,okx,binance',
    LOG_LEVEL: 'warn',
  });
  const prom = await startPrometheus(dir, `127.0.0.1:${demo.metricsPort}`);
  const ws = await wsTraffic(demo.apiUrl, demo.apiKey);
  try {
    const queries = [
      ...recordingRules().map((r) => ({ where: `recording rule ${r.record}`, expr: r.record })),
      ...dashboardFiles()
        .flatMap((f) => dashboardQueries(f))
        .map((q) => ({ where: q.where, expr: withAllVariables(q.expr) })),
    ];
    let scrapes = 0;
    let empty = queries;
    while (Date.now() - started < DEADLINE_MS) {
      await apiTraffic(demo.apiUrl, demo.apiKey);
      await sleep(1000);
      try {
        scrapes = (await seriesCount(prom.url, 'count_over_time(up{job="gex-all"}[5m]) >= 2')) > 0 ? 2 : 0;
        if (scrapes < 2) continue;
        const counts = await Promise.all(empty.map((q) => seriesCount(prom.url, q.expr)));
        empty = empty.filter((_, i) => counts[i] === 0);
      } catch (err) {
        if (!(err instanceof TypeError)) throw err; // fetch failed: Prometheus not listening yet
        continue;
      }
      if (empty.length === 0) break;
    }
    console.log(JSON.stringify({ seconds: (Date.now() - started) / 1000, queries: queries.length, empty: empty.length }));
    assert.equal(scrapes, 2, 'Prometheus scraped the demo at least twice');
    assert.deepEqual(
      empty.map((q) => `${q.where}: ${q.expr}`),
      [],
      'queries without data',
    );
    assert.equal(await seriesCount(prom.url, 'up{job="gex-all"} == 1'), 1);
  } finally {
    ws.ws.close();
    await stop(prom.child, 'SIGTERM');
    await stop(demo.child, 'SIGINT');
    rmSync(dir, { recursive: true, force: true });
  }
});
