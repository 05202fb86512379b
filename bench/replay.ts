/**
 * `npm run bench -- replay`: the replay of stored feed history (issue #30) through the real server: the app listening
 * on 127.0.0.1 in this process (embedded store, the WebSocket feed on an in-process bus), the clients in child
 * processes (bench/replay-clients-process.ts for replays, bench/ws-clients-process.ts for live subscribers).
 *
 * Fill (bench/replay-fill.ts, inside the store): BENCH_REPLAY_DAYS (default 30) of 30 s BTCUSDT snapshots, 4 venues'
 * rows of BENCH_REPLAY_PER_VENUE (300) instruments a venue (86,400 instants for 30 days), and BENCH_REPLAY_TRADES
 * (10,000,000) option trades over the same window.
 * Measure, each over GET /v2/replay (NDJSON) and the WebSocket method `public/replay` (speed max; skipped with a note
 * when the server does not offer it), one transport after the other:
 *   1. levels.BTCUSDT over the whole window to one client: messages/s, MB/s, against the bare SELECT of the same
 *      snapshot rows measured in this run (the replay's SQL, processor-reads.ts levelRecordsBetween, in the
 *      replay's read sizes; target >= 0.5x), and the narrower Native read of the levels column alone; the server
 *      process's RSS growth during the replay (sampled every 100 ms; target < 64 MB; the embedded engine's memory
 *      is part of it: its allocator's growth, and the bare SELECT's, are printed beside it);
 *   2. tape.BTCUSDT over the whole window to one client: trades/s (target >= 200k/s), against the tape replay's own
 *      page reads without the stream (readTapeEntries);
 *   Each single replay also prints the CPU seconds it took: the server's threads by name (bench/thread-cpu.ts: `main`
 *   the event loop, `gex-replay` the replay thread, `node` V8's and libuv's helpers, the engine's by its names) and
 *   the client process.
 *   3. the live feed during BENCH_REPLAY_CONCURRENT (20) replays of levels + tape, each its own user: the
 *      publish -> receive delay of BENCH_REPLAY_LIVE_CLIENTS (100) tape.BTCUSDT subscribers (p50/p99 over every 20th
 *      client) and the server fan-out (bus receive -> written to the last subscriber) for BENCH_REPLAY_LIVE_SECONDS
 *      (10) at BENCH_REPLAY_LIVE_RATE (200) trades/s, against the same measure with no replay (target p99 < 2x idle).
 * BENCH_REPLAY_THREAD=false makes the replays on the API's event loop (REPLAY_THREAD=false), for comparison;
 * BENCH_REPLAY_LOWERS_V8_WORKERS=false leaves V8's platform workers at the process's priority (REPLAY_LOWERS_V8_WORKERS);
 * BENCH_REPLAY_STOPS_PRETENURING=false leaves V8's allocation-site pretenuring on (REPLAY_STOPS_PRETENURING).
 * A quick run: BENCH_REPLAY_DAYS=0.5 BENCH_REPLAY_TRADES=200000 npm run bench -- replay
 *
 * Run alone: node --import tsx bench/replay.ts
 */
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { MemoryBus } from '#bus/memory-bus.ts';
import { ensureProductTopics } from '#bus/topics.ts';
import type { Store } from '#clickhouse/store.ts';
import { buildApp } from '#query-api/app.ts';
import { apiConfig } from '#query-api/config.ts';
import { SnapshotCache } from '#query-api/gex/snapshot-cache.ts';
import { migratedStore, userWithKey } from '#query-api/testing/harness.ts';
import type { ApiInstance } from '#query-api/types.ts';
import { fillSnapshots, fillTrades, INTERVAL, settle, VENUES } from './replay-fill.ts';
import { tableInfo } from './table-info.ts';
import { processCpu, threadCpu, threadCpuSince } from './thread-cpu.ts';
import type { ReplayResult, StartCommand, Transport } from './replay-clients-process.ts';
import { bareLevels, bareTape, type BareRead } from './replay-baselines.ts';
import { child, liveDelay, type Clients, type LiveFigures, type LiveRig } from './replay-live.ts';

const DAYS = Number(process.env['BENCH_REPLAY_DAYS'] ?? 30);
const TRADES = Number(process.env['BENCH_REPLAY_TRADES'] ?? 10_000_000);
const PER_VENUE = Number(process.env['BENCH_REPLAY_PER_VENUE'] ?? 300);
const CONCURRENT = Number(process.env['BENCH_REPLAY_CONCURRENT'] ?? 20);
const END = Math.floor(Date.UTC(2026, 9, 12, 13, 0, 0) / INTERVAL) * INTERVAL;
const TICKS = Math.max(1, Math.round((DAYS * 86_400_000) / INTERVAL));
const START = END - (TICKS - 1) * INTERVAL;
const FROM = new Date(START).toISOString();
const TO = new Date(END).toISOString();
const TRANSPORTS: readonly Transport[] = ['ndjson', 'ws'];

const load = (): string =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
const int = (n: number): string => Math.round(n).toLocaleString('en-US');

// The bench collects garbage before and after each measure (the growth then is what the replay holds, not garbage).
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

interface Growth {
  /** Max growth during the measure, MB. */
  readonly rss: number;
  readonly heap: number;
  /** Max RSS growth within the first 30 s (a bounded replay reaches its plateau early). */
  readonly rssEarly: number;
  /** RSS and heap growth after the measure, after a GC: what stays. */
  readonly rssAfter: number;
  readonly heapAfter: number;
  /** Max growth of the embedded engine's allocator (jemalloc's resident bytes), MB; null where the store has no such figure. */
  readonly engine: number | null;
}

/** The store engine's jemalloc resident bytes (system.jemalloc_stats), or null where it has none. */
async function engineResident(store: Store): Promise<number | null> {
  try {
    const [row] = await store.query<{ stats: string }>('SELECT stats FROM system.jemalloc_stats');
    const m = /resident: (\d+)/.exec(row?.stats ?? '');
    return m === null ? null : Number(m[1]);
  } catch {
    return null;
  }
}

/**
 * RSS and JS-heap growth of this process (the server, with the embedded engine) from now (after a GC) to stop(), and
 * the engine allocator's part of it (sampled every 250 ms).
 */
async function memorySampler(store: Store): Promise<{ stop(): Growth }> {
  gc();
  // Freed pages go back to the system a little after the collection: start from the settled figure.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  gc();
  const m0 = process.memoryUsage();
  const t0 = performance.now();
  let rss = m0.rss;
  let heap = m0.heapUsed;
  let rssEarly = m0.rss;
  const engine0 = await engineResident(store);
  let engine = engine0;
  let sampling = false;
  const engineTimer = setInterval(() => {
    if (engine0 === null || sampling) return;
    sampling = true;
    void engineResident(store).then((r) => {
      if (r !== null && engine !== null) engine = Math.max(engine, r);
      sampling = false;
    });
  }, 250);
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    rss = Math.max(rss, m.rss);
    heap = Math.max(heap, m.heapUsed);
    if (performance.now() - t0 < 30_000) rssEarly = rss;
  }, 100);
  return {
    stop() {
      clearInterval(timer);
      clearInterval(engineTimer);
      gc();
      const m = process.memoryUsage();
      const mb = (b: number): number => b / 1e6;
      return {
        rss: mb(rss - m0.rss),
        heap: mb(heap - m0.heapUsed),
        rssEarly: mb(rssEarly - m0.rss),
        rssAfter: mb(m.rss - m0.rss),
        heapAfter: mb(m.heapUsed - m0.heapUsed),
        engine: engine0 === null || engine === null ? null : mb(engine - engine0),
      };
    },
  };
}

interface Single {
  readonly transport: Transport;
  readonly result: ReplayResult;
  readonly memory: Growth;
  /** CPU seconds meanwhile: the server's threads by name (bench/thread-cpu.ts), and the client process. */
  readonly cpu: string;
}

/** One replay of `channel` over the whole window to one client. */
async function single(store: Store, clients: Clients, base: string, key: string, channel: string, transport: Transport): Promise<Single> {
  process.stderr.write(`  replay ${channel} over ${transport}...\n`);
  const mem = await memorySampler(store);
  const start: StartCommand = { cmd: 'start', transport, base, keys: [key], channels: [channel], from: FROM, to: TO };
  const [threads, client] = [threadCpu(), processCpu(clients.proc.pid ?? 0)];
  await clients.ask(start);
  const [result] = await clients.ask<ReplayResult[]>({ cmd: 'wait' });
  const cpu = `${threadCpuSince(threads)}; the client process ${(processCpu(clients.proc.pid ?? 0) - client).toFixed(2)}`;
  const memory = mem.stop();
  if (result === undefined) throw new Error('no replay result');
  return { transport, result, memory, cpu };
}

function printSingle(what: string, s: Single, bound: BareRead | null, unit: string): void {
  const r = s.result;
  if (r.status !== 'completed') {
    console.log(`  ${what} over ${s.transport}: ${r.status} (${int(r.messages)} messages)`);
    return;
  }
  const rate = r.messages / (r.ms / 1000);
  const ratio = bound === null ? '' : `, ${(rate / bound.perSecond).toFixed(2)}x the bare read (${int(bound.perSecond)} ${unit}/s)`;
  console.log(
    `  ${what} over ${s.transport.padEnd(6)}: ${int(r.messages)} ${unit} in ${(r.ms / 1000).toFixed(1)} s = ${int(rate)} ${unit}/s, ` +
      `${(r.bytes / r.ms / 1e3).toFixed(1)} MB/s (${(r.bytes / 1e6).toFixed(0)} MB)${ratio}; ${growth(s.memory)}`,
  );
  console.log(`    CPU-s meanwhile, server threads: ${s.cpu}`);
}

const signed = (mb: number): string => `${mb < 0 ? '-' : '+'}${Math.abs(mb).toFixed(0)} MB`;
const growth = (g: Growth): string =>
  `server RSS ${signed(g.rss)} max (${signed(g.rssEarly)} within 30 s; ${signed(g.rssAfter)} after, GC'd), ` +
  `JS heap ${signed(g.heap)} max (${signed(g.heapAfter)} after)` +
  (g.engine === null ? '' : `, the engine's allocator ${signed(g.engine)} max`);

function printLive(label: string, f: LiveFigures, idle: LiveFigures | null): void {
  const ratio = (v: number | null, i: number | null): string =>
    v === null || i === null || i <= 0 ? '' : ` (${(v / i).toFixed(1)}x idle)`;
  console.log(
    `  ${label.padEnd(34)} e2e p50 ${f.e2eP50?.toFixed(2) ?? '-'} ms, p99 ${f.e2eP99?.toFixed(2) ?? '-'} ms${ratio(f.e2eP99, idle?.e2eP99 ?? null)} ` +
      `(${int(f.samples)} samples); fan-out p50 ` +
      `${f.fanoutP50.toFixed(2)} ms, p99 ${f.fanoutP99.toFixed(2)} ms${ratio(f.fanoutP99, idle?.fanoutP99 ?? null)}; server event-loop ` +
      `delay p99 ${f.loopP99.toFixed(1)} ms, busy ${(100 * f.loopBusy).toFixed(0)} %; ${int(f.received)} of ` +
      `${int(f.expected)} live notifications` +
      (f.replays === null
        ? ''
        : `; replays: ${int(f.replays.messages)} messages at ${int(f.replays.perSecond)}/s in all, ${f.replays.statuses}`),
  );
}

async function fill(store: Store): Promise<void> {
  let t0 = performance.now();
  await fillSnapshots(store, START, TICKS, PER_VENUE);
  const snapS = (performance.now() - t0) / 1000;
  t0 = performance.now();
  if (TRADES > 0) await fillTrades(store, START, END + INTERVAL, TRADES);
  const tradeS = (performance.now() - t0) / 1000;
  const settleS = await settle(store);
  const snaps = await tableInfo(store, 'gex_snapshots');
  const trades = await tableInfo(store, 'option_trades');
  console.log(
    `  gex_snapshots: ${int(snaps.rows)} rows (${int(TICKS)} instants x ${VENUES.length} venues, ~${PER_VENUE} instruments a venue, ` +
      `${DAYS} d to ${TO}), ${snaps.parts} parts, ${mib(snaps.bytes)} on disk (${mib(snaps.raw)} raw); fill ${snapS.toFixed(0)} s`,
  );
  console.log(
    `  option_trades: ${int(trades.rows)} rows, ${trades.parts} parts, ${mib(trades.bytes)} on disk; fill ${tradeS.toFixed(0)} s`,
  );
  console.log(`  background merges after the fill: ${settleS.toFixed(0)} s; load average ${load()}`);
}

/** Reads every column the replays read once (the engine's marks and the page cache warm, as for the replays after). */
async function warm(store: Store): Promise<void> {
  await store.query(`SELECT sum(length(levels_pack) + length(cell_strike) + length(cell_gex_std) + length(cell_gex_flow) + length(cell_expiry))
    FROM gex_snapshots WHERE symbol = 'BTCUSDT'`);
  await store.query(`SELECT sum(length(id) + length(instrument) + length(trade_id) + strike + price + size + premium_usd + price_usd)
    FROM option_trades WHERE symbol = 'BTCUSDT'`);
}

async function keys(store: Store, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(await userWithKey(store, { userId: `replay-bench-${i}`, plan: 'enterprise' }));
  return out;
}

async function startApp(store: Store, bus: MemoryBus): Promise<{ app: ApiInstance; base: string }> {
  const app = await buildApp({
    store,
    config: apiConfig({
      responseValidation: false,
      replayThread: process.env['BENCH_REPLAY_THREAD'] !== 'false',
      replayLowersV8Workers: process.env['BENCH_REPLAY_LOWERS_V8_WORKERS'] !== 'false',
      replayStopsPretenuring: process.env['BENCH_REPLAY_STOPS_PRETENURING'] !== 'false',
    }),
    logger: false,
    requestLogging: false,
    snapshots: new SnapshotCache(store, { pollMs: 0 }),
    feed: { bus },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

async function measure(store: Store, app: ApiInstance, base: string, bus: MemoryBus): Promise<void> {
  const replayKeys = await keys(store, Math.max(1, CONCURRENT));
  const liveKeys = await keys(store, 1);
  await app.gex.accounts.refresh();
  const key = replayKeys[0] as string;
  const replays = child('./replay-clients-process.ts');
  const subscribers = child('./ws-clients-process.ts');
  try {
    process.stderr.write('  baselines...\n');
    await warm(store);
    const mem = await memorySampler(store);
    const levelsBound = await bareLevels(store, START, END);
    const bareMem = mem.stop();
    const tapeBound = TRADES > 0 ? await bareTape(store, START, END) : null;
    console.log(
      `  baseline: bare SELECT of the snapshot rows (the replay's SQL, ${levelsBound.pieces} reads of ~${levelsBound.perPiece} instants): ` +
        `${int(levelsBound.units)} instants (${int(levelsBound.rows)} rows) in ${(levelsBound.ms / 1000).toFixed(1)} s = ${int(levelsBound.perSecond)} instants/s; ${growth(bareMem)}`,
    );
    if (levelsBound.narrow !== null)
      console.log(
        `  baseline: the levels column alone, Native (venue, t, the packed levels as bytes), same reads: ${(levelsBound.narrow.ms / 1000).toFixed(1)} s = ${int(levelsBound.narrow.perSecond)} instants/s`,
      );
    if (tapeBound !== null)
      console.log(
        `  baseline: the tape replay's page reads without the stream (readTapeEntries, ${tapeBound.perPiece} a page): ${int(tapeBound.units)} trades in ${(tapeBound.ms / 1000).toFixed(1)} s = ${int(tapeBound.perSecond)} trades/s`,
      );
    // The API makes its replays on a thread started by the first replay (a second V8 isolate and its module graph):
    // a one-minute replay starts it first, so that its fixed cost is not counted as the growth of the measures below.
    const threadMem = await memorySampler(store);
    const warmUp: StartCommand = {
      cmd: 'start',
      transport: 'ndjson',
      base,
      keys: [key],
      channels: ['levels.BTCUSDT', 'tape.BTCUSDT'],
      from: FROM,
      to: new Date(START + 60_000).toISOString(),
    };
    await replays.ask(warmUp);
    await replays.ask({ cmd: 'wait' });
    console.log(`  the replay thread, started by a one-minute replay: ${growth(threadMem.stop())}`);
    for (const transport of TRANSPORTS) {
      const s = await single(store, replays, base, key, 'levels.BTCUSDT', transport);
      printSingle('levels replay', s, levelsBound, 'messages');
      if (s.result.status === 'unsupported') continue;
      if (tapeBound !== null)
        printSingle('tape replay  ', await single(store, replays, base, key, 'tape.BTCUSDT', transport), tapeBound, 'trades');
    }
    console.log(`  load average after the single replays: ${load()}`);
    const rig: LiveRig = { app, bus, base, liveKeys, replayKeys, replays, subscribers, from: FROM, to: TO };
    const idle = await liveDelay(rig, null);
    printLive('live feed, idle:', idle, null);
    const busyRuns: [Transport, LiveFigures, Growth][] = [];
    for (const transport of TRANSPORTS) {
      const mem = await memorySampler(store);
      const busy = await liveDelay(rig, transport);
      busyRuns.push([transport, busy, mem.stop()]);
      if (busy.replays?.statuses.includes('unsupported') === true) break;
    }
    // Idle again after the replays: the spread of the two idle runs is the machine's own noise.
    const idleAfter = await liveDelay(rig, null);
    printLive('live feed, idle again after:', idleAfter, null);
    const e2e = (idle.e2eP99 ?? 0) + (idleAfter.e2eP99 ?? 0);
    const meanIdle: LiveFigures = { ...idle, e2eP99: e2e / 2, fanoutP99: (idle.fanoutP99 + idleAfter.fanoutP99) / 2 };
    for (const [transport, busy, m] of busyRuns) {
      printLive(`live feed, ${CONCURRENT} ${transport} replays:`, busy, meanIdle);
      console.log(`    during the ${CONCURRENT} replays: ${growth(m)}`);
    }
    console.log(`  load average at the end: ${load()}`);
  } finally {
    replays.proc.kill();
    subscribers.proc.kill();
  }
}

export async function runReplayBench(): Promise<void> {
  console.log(`replay bench: ${cpus().length} cores, load average ${load()}`);
  const { store, dispose } = await migratedStore();
  const bus = new MemoryBus();
  try {
    await ensureProductTopics(bus, 4);
    await fill(store);
    const { app, base } = await startApp(store, bus);
    try {
      await measure(store, app, base, bus);
    } finally {
      await app.close();
    }
  } finally {
    await bus.close();
    await dispose();
  }
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) await runReplayBench();
