/**
 * WebSocket feed benchmark (`npm run bench -- ws`). One run, same machine state:
 *   1. RSS of the API process per idle authenticated connection (CLIENTS connections, no subscription),
 *   2. the feed: CLIENTS subscribers of tape.BTCUSDT, option trades published on the in-process bus at RATE/s
 *      for SECONDS: fan-out latency (bus receive -> write to the last subscriber, measured around
 *      FeedHub.publish, the quantity of gex_ws_fanout_seconds), client-observed publish -> receive latency
 *      (sampled clients), slow-consumer disconnects,
 *   3. baseline: a bare `ws` server consuming the same bus and broadcasting JSON.stringify(row) to every
 *      client in a loop, same clients, same rate, same measure.
 * Ages of a message per hop, feed and baseline alike: hub (bus publish -> the fan-out starts: bus and source lag),
 * fan-out (the write to the last subscriber), client (publish -> receive on a sampled client), plus the server's peak
 * RSS during the run.
 * The clients run in a child process (bench/ws-clients-process.ts). Targets: fan-out p99 < 50 ms, no
 * slow-consumer disconnect. Settings: WS_BENCH_CLIENTS (1000), WS_BENCH_RATE (2000), WS_BENCH_SECONDS (10).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import { MemoryBus } from '#bus/memory-bus.ts';
import { ensureProductTopics } from '#bus/topics.ts';
import { metricsRegistry } from '#platform/metrics/registry.ts';
import { decodeMarketEvent, encodeMarketEvent } from '#schemas/event-codec.ts';
import { TOPICS, type OptionTrade } from '#schemas/events.ts';
import { buildApp } from '#query-api/app.ts';
import { apiConfig } from '#query-api/config.ts';
import { SnapshotCache } from '#query-api/gex/snapshot-cache.ts';
import { migratedStore, userWithKey } from '#query-api/testing/harness.ts';
import { tapeRow } from '#query-api/tape/tape-row.ts';
import { feedTrade } from '#query-api/ws/testing/trade.ts';

const CLIENTS = Number(process.env['WS_BENCH_CLIENTS'] ?? 1000);
const RATE = Number(process.env['WS_BENCH_RATE'] ?? 2000);
const SECONDS = Number(process.env['WS_BENCH_SECONDS'] ?? 10);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const trade = (n: number): OptionTrade => feedTrade(Date.now(), n, { prefix: 'bench' });

/** Wall time (Date.now()) at which trade n was published, for the age of a message at each hop. */
let publishedAt: number[] = [];

/** Trade number of a tape row's JSON (its trade_id), without parsing the document. */
function tradeNo(json: string): number {
  const i = json.indexOf('"trade_id":"') + 12;
  return Number(json.slice(i, json.indexOf('"', i)));
}

/** Age (ms) at the hub of the message carrying `json`: bus publish -> the feed's source hands it to the fan-out. */
const ageOf = (json: string): number => Date.now() - (publishedAt[tradeNo(json)] ?? Date.now());

/** Publishes RATE trades/s in 10 ms steps for SECONDS. */
async function publishAtRate(bus: MemoryBus): Promise<number> {
  const perStep = Math.max(1, Math.round(RATE / 100));
  const start = performance.now();
  publishedAt = [];
  let n = 0;
  for (let step = 0; step < SECONDS * 100; step++) {
    const due = start + step * 10;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const batch = Array.from({ length: perStep }, () => {
      publishedAt[n] = Date.now();
      return encodeMarketEvent({ type: 'option_trade', event: trade(n++) }).message;
    });
    await bus.publish(TOPICS.option_trade, batch);
  }
  return n;
}

/** Peak RSS of this process (the server) while `run` runs, sampled every 200 ms. */
async function peakRss<T>(run: () => Promise<T>): Promise<{ value: T; peakRssMb: number }> {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 200);
  try {
    const value = await run();
    return { value, peakRssMb: Math.round(peak / 2 ** 20) };
  } finally {
    clearInterval(timer);
  }
}

function child(): { proc: ChildProcess; ask: (m: unknown) => Promise<Record<string, unknown>> } {
  const proc = fork(fileURLToPath(new URL('./ws-clients-process.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ask = (m: unknown): Promise<Record<string, unknown>> =>
    new Promise((resolve) => {
      proc.once('message', (r) => resolve(r as Record<string, unknown>));
      proc.send(m as never);
    });
  return { proc, ask };
}

const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round((s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0) * 100) / 100;
};

async function slowDisconnects(): Promise<number> {
  return (await metricsRegistry.getSingleMetric('gex_ws_slow_consumer_disconnects_total')?.get())?.values[0]?.value ?? 0;
}

async function baseline(bus: MemoryBus, clients: ReturnType<typeof child>): Promise<Record<string, unknown>> {
  const server = createServer();
  const wss = new WebSocketServer({ server });
  const sockets = new Set<WebSocket>();
  wss.on('connection', (ws) => {
    sockets.add(ws);
    ws.on('close', () => sockets.delete(ws));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const fanout: number[] = [];
  const hubAge: number[] = [];
  let seq = 0;
  const consumer = await bus.subscribe({
    groupId: `bench-bare-${process.pid}`,
    topics: [TOPICS.option_trade],
    fromBeginning: false,
    eachBatch: async (batch) => {
      for (const m of batch.messages) {
        const at = performance.now();
        const e = decodeMarketEvent(TOPICS.option_trade, m.value);
        if (e.type !== 'option_trade') continue;
        const row = tapeRow(e.event);
        hubAge.push(Date.now() - (publishedAt[Number(row.trade_id)] ?? Date.now()));
        const text = JSON.stringify({ jsonrpc: '2.0', method: 'subscription', params: { channel: 'tape.BTCUSDT', seq: ++seq, data: row } });
        for (const ws of sockets) ws.send(text);
        fanout.push(performance.now() - at);
      }
    },
  });
  await clients.ask({ cmd: 'connect', url, keys: [''], n: CLIENTS, subscribe: false });
  const { value: published, peakRssMb } = await peakRss(() => publishAtRate(bus));
  await sleep(1000);
  const seen = await clients.ask({ cmd: 'report' });
  await clients.ask({ cmd: 'close' });
  await consumer.stop();
  await new Promise<void>((r) => wss.close(() => server.close(() => r())));
  return {
    published,
    hub_age_p50_ms: quantile(hubAge, 0.5),
    hub_age_p99_ms: quantile(hubAge, 0.99),
    fanout_p50_ms: quantile(fanout, 0.5),
    fanout_p99_ms: quantile(fanout, 0.99),
    ...seen,
    server_peak_rss_mb: peakRssMb,
  };
}

export async function runWsBench(): Promise<void> {
  const t = await migratedStore();
  const bus = new MemoryBus();
  await ensureProductTopics(bus, 4);
  const app = await buildApp({
    store: t.store,
    config: apiConfig({}),
    logger: false,
    requestLogging: false,
    snapshots: new SnapshotCache(t.store, { pollMs: 0 }),
    feed: { bus },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const url = `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/v2/ws`;
  const keys: string[] = [];
  for (let u = 0; u < Math.ceil(CLIENTS / 200); u++) keys.push(await userWithKey(t.store, { userId: `bench-${u}`, plan: 'enterprise' }));
  await app.gex.accounts.refresh();
  const feed = app.wsFeed;
  if (feed === null) throw new Error('feed not attached');
  const fanout: number[] = [];
  const hubAge: number[] = [];
  const publish = feed.hub.publish.bind(feed.hub);
  feed.hub.publish = (name, data, at) => {
    hubAge.push(ageOf(data));
    const n = publish(name, data, at);
    fanout.push(performance.now() - at);
    return n;
  };
  const clients = child();
  try {
    global.gc?.();
    await sleep(500);
    const rssBefore = process.memoryUsage().rss;
    // Keys cycle so each enterprise user (cap 200) holds at most 200 connections.
    const ordered = Array.from({ length: CLIENTS }, (_, i) => keys[Math.floor(i / 200)] ?? '');
    await clients.ask({ cmd: 'connect', url, keys: ordered, n: CLIENTS, subscribe: false });
    await sleep(1000);
    global.gc?.();
    const rssIdle = process.memoryUsage().rss;
    await clients.ask({ cmd: 'close' });
    await sleep(500);

    const slowBefore = await slowDisconnects();
    await clients.ask({ cmd: 'connect', url, keys: ordered, n: CLIENTS, subscribe: true });
    await sleep(500);
    const { value: published, peakRssMb } = await peakRss(() => publishAtRate(bus));
    await sleep(1000);
    const seen = await clients.ask({ cmd: 'report' });
    await clients.ask({ cmd: 'close' });
    const feedResult = {
      clients: CLIENTS,
      rate_per_s: RATE,
      seconds: SECONDS,
      published,
      expected_messages: published * CLIENTS,
      hub_age_p50_ms: quantile(hubAge, 0.5),
      hub_age_p99_ms: quantile(hubAge, 0.99),
      fanout_p50_ms: quantile(fanout, 0.5),
      fanout_p99_ms: quantile(fanout, 0.99),
      slow_consumer_disconnects: (await slowDisconnects()) - slowBefore,
      ...seen,
      rss_per_idle_connection_kb: Math.round((rssIdle - rssBefore) / CLIENTS / 102.4) / 10,
      server_peak_rss_mb: peakRssMb,
    };
    process.stdout.write(`ws feed: ${JSON.stringify(feedResult)}\n`);
    const bare = await baseline(bus, clients);
    process.stdout.write(`bare ws broadcast baseline: ${JSON.stringify(bare)}\n`);
    process.stdout.write(
      `fan-out p99 ratio feed/bare: ${Math.round((feedResult.fanout_p99_ms / Math.max(0.01, Number(bare['fanout_p99_ms']))) * 100) / 100}; target p99 < 50 ms: ${feedResult.fanout_p99_ms < 50 ? 'met' : 'NOT met'}\n`,
    );
  } finally {
    clients.proc.kill();
    await app.close();
    await bus.close();
    await t.dispose();
  }
}
