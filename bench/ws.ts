/**
 * WebSocket feed benchmark (`npm run bench -- ws`). One run, same machine state:
 *   1. RSS of the API process per idle authenticated connection (CLIENTS connections, no subscription),
 *   2. the feed: CLIENTS subscribers of tape.BTCUSDT, option trades published on the in-process bus at RATE/s
 *      for SECONDS: fan-out (bus receive -> write to the last subscriber of a FeedHub.publishMany run, the quantity
 *      of gex_ws_fanout_seconds), client-observed publish -> receive latency (sampled clients), trades dropped by the
 *      age bound (gex_ws_feed_dropped_total), slow-consumer disconnects,
 *   3. baseline: a bare `ws` server consuming the same bus (same publisher, same bus batches) and, for each message,
 *      broadcasting JSON.stringify(notification) to every client in a plain loop of ws.send; same clients, rate and
 *      measures. It stops writing 1 s after the publish window (the bench's measurement window; an overloaded bare
 *      server would otherwise go on for minutes) and reports what it had not sent by then.
 * Ages of a message per hop, feed and baseline alike: hub (bus publish -> its fan-out starts: bus, source and backlog
 * wait), fan-out (the write to the last subscriber), e2e (publish -> receive on a sampled client), plus the server's
 * peak RSS and the machine's load average. The clients run in a child process (bench/ws-clients-process.ts); one
 * fan-out in isolation: bench/ws-fanout.ts. Targets (issue #33 item 4): feed e2e p99 <= 2x the bare baseline's;
 * overload shed (drop-and-mark, 4009) rather than queued. Settings: WS_BENCH_CLIENTS (1000), WS_BENCH_RATE (2000),
 * WS_BENCH_SECONDS (10).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import { loadavg } from 'node:os';
import { WebSocketServer, type WebSocket } from 'ws';
import { MemoryBus } from '#bus/memory-bus.ts';
import { ensureProductTopics } from '#bus/topics.ts';
import { metricsRegistry } from '#platform/metrics/registry.ts';
import { decodeMarketEvent, encodeMarketEvent } from '#schemas/event-codec.ts';
import { TOPICS } from '#schemas/events.ts';
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

/** Wall time (Date.now()) at which trade n was published, for the age of a message at each hop. */
let publishedAt: number[] = [];

/** Trade number of a tape row's JSON (its trade_id), without parsing the document. */
function tradeNo(json: string): number {
  const i = json.indexOf('"trade_id":"') + 12;
  return Number(json.slice(i, json.indexOf('"', i)));
}

/** Age (ms) at the hub of the message carrying `json`: bus publish -> the feed's source hands it to the fan-out. */
const ageOf = (json: string): number => Date.now() - (publishedAt[tradeNo(json)] ?? Date.now());

/**
 * Publishes RATE trades/s for SECONDS: one bus batch every 10 ms (every 1000/RATE ms under 100/s). Each trade carries
 * its scheduled time (trade time = publish time for the ages): when the server's event loop, which this loop shares,
 * holds a step back, the step is late and its latency counts from when it was due (no coordinated omission).
 */
async function publishAtRate(bus: MemoryBus): Promise<number> {
  const perStep = Math.max(1, Math.round(RATE / 100));
  const stepMs = (1000 * perStep) / RATE;
  const start = performance.now();
  const startWall = Date.now();
  publishedAt = [];
  let n = 0;
  for (let step = 0; step < (SECONDS * 1000) / stepMs; step++) {
    const due = start + step * stepMs;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const dueWall = Math.round(startWall + step * stepMs);
    const batch = Array.from({ length: perStep }, () => {
      publishedAt[n] = dueWall;
      return encodeMarketEvent({ type: 'option_trade', event: feedTrade(dueWall, n++, { prefix: 'bench' }) }).message;
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

async function metricTotal(name: string): Promise<number> {
  return ((await metricsRegistry.getSingleMetric(name)?.get())?.values ?? []).reduce((n, v) => n + v.value, 0);
}
const slowDisconnects = (): Promise<number> => metricTotal('gex_ws_slow_consumer_disconnects_total');
const droppedTrades = (): Promise<number> => metricTotal('gex_ws_feed_dropped_total');
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

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
  let deadline = Number.POSITIVE_INFINITY;
  let unsent = 0;
  const consumer = await bus.subscribe({
    groupId: `bench-bare-${process.pid}`,
    topics: [TOPICS.option_trade],
    fromBeginning: false,
    eachBatch: async (batch) => {
      for (const m of batch.messages) {
        const at = performance.now();
        if (at > deadline) {
          unsent++;
          continue;
        }
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
  const loadAtStart = load();
  // The window closes 1 s after the publisher's schedule ends, however late the publisher itself runs.
  deadline = performance.now() + SECONDS * 1000 + 1000;
  const { value: published, peakRssMb } = await peakRss(async () => {
    const n = await publishAtRate(bus);
    await sleep(Math.max(0, deadline - performance.now()));
    return n;
  });
  const seen = await clients.ask({ cmd: 'report' });
  await clients.ask({ cmd: 'close' });
  await consumer.stop();
  await new Promise<void>((r) => wss.close(() => server.close(() => r())));
  return {
    published,
    not_sent_in_window: unsent,
    hub_age_p50_ms: quantile(hubAge, 0.5),
    hub_age_p99_ms: quantile(hubAge, 0.99),
    fanout_p50_ms: quantile(fanout, 0.5),
    fanout_p99_ms: quantile(fanout, 0.99),
    ...seen,
    server_peak_rss_mb: peakRssMb,
    load_avg: loadAtStart,
  };
}

/** The side-by-side line: e2e p50 / p99 of feed and bare, the p99 ratio against the 2x target, what the feed dropped. */
function summary(feed: Record<string, unknown>, bare: Record<string, unknown>): string {
  const n = (v: unknown): number | null => (typeof v === 'number' ? v : null);
  const [f50, f99, b50, b99] = [n(feed['e2e_p50_ms']), n(feed['e2e_p99_ms']), n(bare['e2e_p50_ms']), n(bare['e2e_p99_ms'])];
  const ratio = f99 !== null && b99 !== null ? Math.round((f99 / Math.max(1, b99)) * 100) / 100 : null;
  const delivered = (r: Record<string, unknown>): string =>
    `${Math.round(((n(r['received']) ?? 0) / Math.max(1, (n(r['published']) ?? 0) * CLIENTS)) * 1000) / 10}%`;
  return (
    `e2e ms feed p50 ${f50} p99 ${f99} | bare p50 ${b50} p99 ${b99} | p99 ratio feed/bare ${ratio} (target <= 2: ` +
    `${ratio !== null && ratio <= 2 ? 'met' : 'NOT met'}) | feed dropped ${String(feed['dropped'])}, delivered ${delivered(feed)}; ` +
    `bare delivered ${delivered(bare)} | server peak RSS feed ${String(feed['server_peak_rss_mb'])} MB, bare ${String(bare['server_peak_rss_mb'])} MB`
  );
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
  const runs: number[] = [];
  const calls: number[] = [];
  const publishMany = feed.hub.publishMany.bind(feed.hub);
  feed.hub.publishMany = (name, data, at) => {
    for (const d of data) hubAge.push(ageOf(d));
    const t0 = performance.now();
    const n = publishMany(name, data, at);
    const end = performance.now();
    fanout.push(end - at);
    calls.push(end - t0);
    runs.push(data.length);
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
    const droppedBefore = await droppedTrades();
    await clients.ask({ cmd: 'connect', url, keys: ordered, n: CLIENTS, subscribe: true });
    await sleep(500);
    const loadAtStart = load();
    let backlogPeak = 0;
    const backlogProbe = setInterval(() => (backlogPeak = Math.max(backlogPeak, feed.source.backlog.size)), 50);
    const { value: published, peakRssMb } = await peakRss(async () => {
      const n = await publishAtRate(bus);
      await sleep(1000);
      return n;
    });
    clearInterval(backlogProbe);
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
      publish_many_call_p50_ms: quantile(calls, 0.5),
      publish_many_call_p99_ms: quantile(calls, 0.99),
      fanout_runs: runs.length,
      run_size_p50: quantile(runs, 0.5),
      run_size_max: Math.max(0, ...runs),
      dropped: (await droppedTrades()) - droppedBefore,
      backlog_peak: backlogPeak,
      slow_consumer_disconnects: (await slowDisconnects()) - slowBefore,
      ...seen,
      rss_per_idle_connection_kb: Math.round((rssIdle - rssBefore) / CLIENTS / 102.4) / 10,
      server_peak_rss_mb: peakRssMb,
      load_avg: loadAtStart,
    };
    process.stdout.write(`ws feed: ${JSON.stringify(feedResult)}\n`);
    const bare = await baseline(bus, clients);
    process.stdout.write(`bare ws broadcast baseline: ${JSON.stringify(bare)}\n`);
    process.stdout.write(`${summary(feedResult, bare)}\n`);
  } finally {
    clients.proc.kill();
    await app.close();
    await bus.close();
    await t.dispose();
  }
}
