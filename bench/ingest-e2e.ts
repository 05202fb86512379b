/**
 * End-to-end ingest throughput and latency: sandbox market (a second process, manual clock, option-trade bursts on every venue)
 * -> WebSocket -> the real connectors (on their own thread, startIngestThread, as the product runs them; and on the
 * writer's thread, startIngest, for comparison) -> bus -> raw writer -> ClickHouse (embedded chDB), on the
 * in-process bus and, when KAFKA_BROKERS or KAFKA_TEST_BROKERS is set, on Kafka. Latency = the raw writer's
 * store time (after the INSERT returned) minus the connector's receive time, per option-trade row.
 * Baseline in the same run: the same number of option trades published straight to the bus (EventPublisher, no
 * sockets, no parsers) and stored by the same raw writer. Saturation: baseline and end-to-end rounds alternate on one
 * running pipeline, BENCH_INGEST_E2E_WARMUP (1) untimed pairs, then BENCH_INGEST_E2E_PAIRS (5) timed ones; the verdict
 * takes the median of the pairs' ratios. The connectors on the writer's thread (one thread): 3 timed rounds on a
 * pipeline of their own, compared with the paired baseline's median. BENCH_INGEST_E2E_WRITES sets the raw writer's
 * writes in flight (default: the product's, 2); BENCH_INGEST_E2E_FLOOD=0 skips the saturation measures.
 * Each measure also prints the pipeline process's CPU seconds by thread (bench/thread-cpu.ts): the event loop
 * (`main`: bus, raw writer), the connectors' thread (`gex-ingest`), Node's helpers (`node`: garbage collection,
 * compilers) and the embedded store's threads (`Unknown`: the INSERT statements, `MergeMutate`: merges, ...).
 */
import { rmSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { Bus } from '#bus/types.ts';
import type { MarketEvent, Venue } from '#schemas/events.ts';
import type { VenueUrls } from '#ingest/connector/types.ts';
import { MemoryBus } from '#bus/memory-bus.ts';
import { KafkaBus } from '#bus/kafka-bus.ts';
import { ensureProductTopics } from '#bus/topics.ts';
import { migrate } from '#clickhouse/migrate.ts';
import { openTempStore } from '#clickhouse/testing/temp-store.ts';
import { RAW_TABLES } from '#clickhouse/rows.ts';
import { startRawWriter, type StoredHook } from '#processors/raw-writer/raw-writer.ts';
import { startIngest } from '#ingest/pipeline/run-ingest.ts';
import { startIngestThread } from '#ingest/thread/start-ingest-thread.ts';
import { EventPublisher } from '#ingest/pipeline/event-publisher.ts';
import { createSandboxMarket } from '#sandbox/market/market.ts';
import { connectorUrlsFor } from '#sandbox/connector-urls.ts';
import { SANDBOX_VENUES, type SandboxVenue } from '#sandbox/market/venues.ts';
import { forkSandboxProcess } from '#sandbox/harness/sandbox-process.ts';
import type { VenueUrls as SandboxUrls } from '#sandbox/servers/types.ts';
import { threadCpu, threadCpuSince } from './thread-cpu.ts';
import { HopTimes } from './ingest-hops.ts';
import { storeFileSystemLine } from './store-file-system.ts';

const SYMBOLS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'HYPEUSDT'] as const;
const TOTAL = Number(process.env['BENCH_INGEST_E2E_EVENTS'] ?? 200_000);
const BURST = 2_000;
const FLOOD_ROUNDS = 3;
/** Timed baseline / end-to-end pairs of the saturation measure (pairedSaturation). */
const PAIRS = Number(process.env['BENCH_INGEST_E2E_PAIRS'] ?? 5);
/**
 * Untimed rounds before the timed ones of each saturation measure (baseline and end to end alike): the first round
 * of a fresh pipeline also compiles the hot code and sizes the heaps (measured: ~20 % more CPU than the third).
 */
const WARMUP_ROUNDS = Number(process.env['BENCH_INGEST_E2E_WARMUP'] ?? 1);
/** The raw writer's writes in flight (RawWriterOptions.writesInFlight) when BENCH_INGEST_E2E_WRITES is set, for A/B runs. */
const WRITES = process.env['BENCH_INGEST_E2E_WRITES'] === undefined ? undefined : Number(process.env['BENCH_INGEST_E2E_WRITES']);

interface Result {
  readonly events: number;
  readonly seconds: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** The raw writer's option-trade INSERTs meanwhile. */
  readonly inserts: number;
  /** CPU seconds used meanwhile by the pipeline process (JS + chDB threads) and by the sandbox process. */
  readonly pipelineCpu?: number;
  readonly sandboxCpu?: number;
  /** The pipeline process's CPU seconds meanwhile by thread (bench/thread-cpu.ts). */
  readonly threads?: string;
  /** Receive -> stored hop by hop (bench/ingest-hops.ts). */
  readonly hops?: string;
}

/** Counts stored option-trade rows and their receive -> stored latencies. */
class StoredProbe {
  count = 0;
  /** Option-trade INSERTs that stored counted rows. */
  inserts = 0;
  /** Rows received before this are ignored (a shared Kafka topic may hold earlier runs). */
  since = Date.now();
  readonly latencies: number[] = [];
  /** Receive -> stored hop by hop, in the latency rounds only (null: the saturation rounds, not slowed by it). */
  constructor(readonly hops: HopTimes | null) {}
  readonly hook: StoredHook = (table, rows, storedAt) => {
    if (table !== RAW_TABLES.option_trade) return;
    const count = this.count;
    for (const r of rows) {
      if (!('received_at' in r) || typeof r.received_at !== 'number' || r.received_at < this.since) continue;
      this.count++;
      this.latencies.push(storedAt - r.received_at);
    }
    if (this.count > count) this.inserts++;
    this.hops?.stored(rows, this.count - count, storedAt);
  };
  reset(): void {
    this.hops?.reset();
    this.count = 0;
    this.inserts = 0;
    this.latencies.length = 0;
    this.since = Date.now();
  }
  percentile(q: number): number {
    const s = [...this.latencies].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('bench timed out waiting for rows to be stored');
    await sleep(5);
  }
}

async function withPipeline<T>(makeBus: () => Bus, run: (bus: Bus, probe: StoredProbe) => Promise<T>, hops = false): Promise<T> {
  const { store, dataPath, close } = await openTempStore();
  const probe = new StoredProbe(hops ? new HopTimes() : null);
  const bus = probe.hops?.bus(makeBus()) ?? makeBus();
  try {
    await migrate(store);
    await ensureProductTopics(bus, 6);
    // A new group per run, starting at the end of the topics: a long-lived broker still holds earlier runs' events.
    const writer = await startRawWriter(bus, probe.hops?.store(store) ?? store, {
      groupId: `bench-e2e-${Date.now()}`,
      fromBeginning: false,
      ...(WRITES === undefined ? {} : { writesInFlight: WRITES }),
      onStored: probe.hook,
    });
    try {
      return await run(bus, probe);
    } finally {
      await writer.stop();
    }
  } finally {
    await bus.close();
    await close();
    deleteAtExit(dataPath);
  }
}

/**
 * A round's store is deleted when the bench exits, not before the next round: on a file system without a journal
 * (this machine's root) creating a file scans the inodes freed in the last minutes, so deleting a store's thousands
 * of part files made every following round's INSERTs slower (bench/RESULTS.md "ingest": p50 133 -> 158 ms over four
 * back-to-back 10,000/s rounds; flat with the deletions deferred).
 */
function deleteAtExit(dataPath: string): void {
  if (storesToDelete.length === 0)
    process.once('exit', () => {
      for (const dir of storesToDelete) rmSync(dir, { recursive: true, force: true });
    });
  storesToDelete.push(dataPath);
}
const storesToDelete: string[] = [];

/** The sandbox market in its own process (bench/sandbox-process.ts), driven over IPC. */
interface LoadGenerator {
  readonly urls: Partial<Record<SandboxVenue, SandboxUrls>>;
  /** Emit `perVenue` option trades on every venue; resolves with the running delivered count. */
  emit(perVenue: number): Promise<number>;
  /** Generate bursts x perVenue trades per venue with the frames held back (untimed); release() writes them. */
  prepare(perVenue: number, bursts: number): Promise<number>;
  release(): Promise<number>;
  delivered(): Promise<number>;
  /** CPU seconds the sandbox process has used so far. */
  cpu(): Promise<number>;
  stop(): Promise<void>;
}

async function startLoadGenerator(): Promise<LoadGenerator> {
  const prof = process.env['BENCH_CHILD_PROF'];
  const child = await forkSandboxProcess(
    new URL('./sandbox-process.ts', import.meta.url),
    prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : [],
  );
  const delivered = async (cmd: object): Promise<number> => Number((await child.ask(cmd))['delivered']);
  return {
    urls: child.ready['urls'] as Partial<Record<SandboxVenue, SandboxUrls>>,
    emit: (perVenue) => delivered({ cmd: 'emit', perVenue }),
    prepare: (perVenue, bursts) => delivered({ cmd: 'prepare', perVenue, bursts }),
    release: () => delivered({ cmd: 'release' }),
    delivered: () => delivered({ cmd: 'delivered' }),
    cpu: async () => Number((await child.ask({ cmd: 'delivered' }))['cpu']),
    stop: () => child.stop(),
  };
}

/** A load shape: `prepare` (untimed, optional) readies the generator, `run` is the timed part. */
interface Drive {
  prepare?(gen: LoadGenerator): Promise<void>;
  run(gen: LoadGenerator): Promise<void>;
}

/** One kind of round: its untimed preparation, the CPU of a second process if any, and the timed load. */
interface RoundSpec {
  /** Untimed: readies the round's load (before the pause that lets the pipeline settle). */
  readonly prepare?: () => Promise<void>;
  /** Starts counting a second process's CPU: returns the reader of its CPU seconds since. */
  readonly sideCpu?: () => Promise<() => Promise<number>>;
  /** The timed load: resolves with the number of events it offered, once offered. */
  readonly run: () => Promise<number>;
}

/**
 * `warmup` untimed rounds, then `rounds` timed ones: each round's time runs from the load's start until the probe
 * counted every offered event stored; with the pipeline's CPU (whole process and by thread) meanwhile.
 */
async function timedRounds(probe: StoredProbe, rounds: number, warmup: number, spec: RoundSpec): Promise<Result[]> {
  const results: Result[] = [];
  for (let round = -warmup; round < rounds; round++) {
    await spec.prepare?.();
    await sleep(500);
    probe.reset();
    const side = await spec.sideCpu?.();
    const cpu0 = process.cpuUsage();
    const threads0 = threadCpu();
    const t0 = performance.now();
    const events = await spec.run();
    await until(() => probe.count >= events, 300_000);
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const threads = threadCpuSince(threads0);
    const sandboxCpu = side === undefined ? undefined : await side();
    if (round < 0) continue;
    const result: Result = {
      events,
      seconds,
      p50Ms: probe.percentile(0.5),
      p99Ms: probe.percentile(0.99),
      inserts: probe.inserts,
      pipelineCpu: (cpu.user + cpu.system) / 1e6,
      threads,
      ...(probe.hops === null ? {} : { hops: probe.hops.summary() }),
    };
    results.push(sandboxCpu === undefined ? result : { ...result, sandboxCpu });
  }
  return results;
}

/**
 * The sandbox market (second process) and the real connectors feeding `bus`, connected: `thread`, the connectors on
 * their own thread (startIngestThread, the product's default INGEST_THREAD=true) or on the thread of the bus and the
 * raw writer (startIngest).
 */
async function withConnectors<T>(bus: Bus, thread: boolean, run: (gen: LoadGenerator) => Promise<T>): Promise<T> {
  const gen = await startLoadGenerator();
  const urls: Partial<Record<Venue, VenueUrls>> = {};
  for (const v of SANDBOX_VENUES) {
    const u = gen.urls[v];
    if (u) urls[v] = connectorUrlsFor(v, u);
  }
  const options = { venues: SANDBOX_VENUES, symbols: SYMBOLS, urls, publisher: { maxBatch: 5000, lingerMs: 10 } };
  const ingest = thread ? await startIngestThread(bus, options) : await startIngest({ bus, ...options });
  const connected = async (): Promise<boolean> => {
    const all = 'connections' in ingest ? await ingest.connections() : ingest.venues.map((v) => v.connections());
    return all.every((c) => c.open === c.planned);
  };
  try {
    const deadline = Date.now() + 20_000;
    while (!(await connected())) {
      if (Date.now() > deadline) throw new Error('sandbox connections did not open');
      await sleep(50);
    }
    return await run(gen);
  } finally {
    await ingest.stop();
    await gen.stop();
  }
}

/** A round of the connectors' path: `drive` makes the sandbox emit, the round counts what it delivered. */
function connectorRound(gen: LoadGenerator, drive: Drive): RoundSpec {
  let delivered0 = 0;
  return {
    prepare: async () => {
      delivered0 = await gen.delivered();
      await drive.prepare?.(gen);
    },
    sideCpu: async () => {
      const cpu0 = await gen.cpu();
      return async () => (await gen.cpu()) - cpu0;
    },
    run: async () => {
      await drive.run(gen);
      return (await gen.delivered()) - delivered0;
    },
  };
}

/** Sandbox -> real sockets -> the real connectors -> bus -> raw writer; `drive` emits the trades. */
async function endToEnd(
  makeBus: () => Bus,
  drive: Drive,
  rounds: number,
  thread: boolean,
  { warmup = 0, hops = false }: { readonly warmup?: number; readonly hops?: boolean } = {},
): Promise<Result[]> {
  return withPipeline(
    makeBus,
    (bus, probe) => withConnectors(bus, thread, (gen) => timedRounds(probe, rounds, warmup, connectorRound(gen, drive))),
    hops,
  );
}

/**
 * Throughput: TOTAL option trades as fast as the pipeline takes them. The sandbox generates them and builds every
 * venue's frames before the timed window (frames held), then writes them all: the market model's CPU is not
 * charged to the window, as a load generator pre-builds its requests, and the pipeline gets the machine.
 */
const flood: Drive = {
  prepare: async (gen) => {
    const perVenue = Math.max(1, Math.round(BURST / 2));
    await gen.prepare(perVenue, Math.ceil(TOTAL / (perVenue * SANDBOX_VENUES.length)));
  },
  run: async (gen) => {
    await gen.release();
  },
};

/** Latency: a steady offered load of `perSecond` trades for `seconds`, in 50 ms slices across the venues. */
function steady(perSecond: number, seconds: number): Drive {
  const run = async (gen: LoadGenerator): Promise<void> => {
    const slices = seconds * 20;
    const perVenue = Math.max(1, Math.round(perSecond / 20 / SANDBOX_VENUES.length));
    const start = performance.now();
    for (let i = 0; i < slices; i++) {
      await gen.emit(perVenue);
      await sleep(Math.max(0, start + (i + 1) * 50 - performance.now()));
    }
  };
  return { run };
}

/** TOTAL option trades of the sandbox market's model, as the baseline publishes them. */
function baselineEvents(): MarketEvent[] {
  const market = createSandboxMarket({ seed: 99, startMs: Date.now(), symbols: SYMBOLS });
  const events: MarketEvent[] = [];
  while (events.length < TOTAL) for (const v of SANDBOX_VENUES) events.push(...market.burst(v, BURST));
  return events;
}

/**
 * A round of the baseline: the same volume of option trades published straight to the bus (EventPublisher, no
 * sockets, no parsers), received now, and stored by the same raw writer.
 */
function baselineRound(publisher: EventPublisher, events: readonly MarketEvent[]): RoundSpec {
  return {
    run: async () => {
      for (let i = 0; i < events.length; i += BURST) {
        const now = Date.now();
        const chunk = events.slice(i, i + BURST).map((e) => ({ ...e, event: { ...e.event, receivedAt: now } }) as MarketEvent);
        const wait = publisher.add(chunk);
        if (wait) await wait;
        await new Promise((r) => setImmediate(r));
      }
      await publisher.flush();
      return events.length;
    },
  };
}

/**
 * The saturation measure: baseline and end-to-end rounds alternate on one running pipeline (one store, one raw
 * writer, the connectors on their own thread connected throughout), so a drift of this shared machine's speed over
 * the minute reaches both sides alike and each pair's ratio compares neighbours. WARMUP_ROUNDS untimed pairs first.
 */
async function pairedSaturation(makeBus: () => Bus, pairs: number): Promise<{ base: Result[]; e2e: Result[] }> {
  const events = baselineEvents();
  return withPipeline(makeBus, (bus, probe) =>
    withConnectors(bus, true, async (gen) => {
      const publisher = new EventPublisher(bus, { maxBatch: 5000, lingerMs: 10 });
      const base: Result[] = [];
      const e2e: Result[] = [];
      try {
        for (let pair = -WARMUP_ROUNDS; pair < pairs; pair++) {
          const [b] = await timedRounds(probe, 1, 0, baselineRound(publisher, events));
          const [e] = await timedRounds(probe, 1, 0, connectorRound(gen, flood));
          if (pair < 0 || !b || !e) continue;
          base.push(b);
          e2e.push(e);
        }
      } finally {
        await publisher.close();
      }
      return { base, e2e };
    }),
  );
}

const rateOf = (r: Result): number => r.events / r.seconds;

/** The round of median rate. */
function median(results: readonly Result[]): Result | undefined {
  return [...results].sort((x, y) => rateOf(x) - rateOf(y))[Math.floor(results.length / 2)];
}

function line(label: string, r: Result, base?: Result): string {
  const rate = rateOf(r);
  const ratio = base ? `  ${(rate / rateOf(base)).toFixed(2)}x baseline` : '';
  const cpu =
    r.pipelineCpu === undefined
      ? ''
      : `  CPU-s: pipeline ${r.pipelineCpu.toFixed(1)}${r.sandboxCpu === undefined ? '' : `, sandbox ${r.sandboxCpu.toFixed(1)}`}`;
  const threads = r.threads === undefined || r.threads === '' ? '' : `\n    pipeline CPU-s by thread: ${r.threads}`;
  return (
    `${label.padEnd(44)} ${String(r.events).padStart(8)} ev  ${r.seconds.toFixed(2).padStart(7)} s  ` +
    `${Math.round(rate).toString().padStart(8)} ev/s  p50 ${r.p50Ms.toFixed(0).padStart(5)} ms  p99 ${r.p99Ms.toFixed(0).padStart(5)} ms${ratio}${cpu}` +
    `  inserts ${r.inserts} (${Math.round(r.events / Math.max(1, r.inserts))} rows each)${threads}`
  );
}

/** Steady offered loads of the latency part (BENCH_INGEST_E2E_RATES, comma-separated trades/s). */
const RATES = (process.env['BENCH_INGEST_E2E_RATES'] ?? '1000,10000,30000')
  .split(',')
  .map(Number)
  .filter((r) => r > 0);
/** BENCH_INGEST_E2E_FLOOD=0 skips the saturation measures (the latency part alone). */
const FLOOD = process.env['BENCH_INGEST_E2E_FLOOD'] !== '0';
/** Targets (issue #33): embedded e2e at saturation, its ratio to publish -> store, p99 receive -> stored at 10k/s. */
const TARGET_EVENTS_PER_S = 100_000;
const TARGET_RATIO = 0.9;
const TARGET_P99_MS = 250;
const TARGET_P99_RATE = 10_000;

export async function runIngestE2eBench(): Promise<void> {
  process.stdout.write(
    `\n== ingest e2e: sandbox -> WS -> connectors -> bus -> raw writer -> ClickHouse (${TOTAL} option trades; targets, embedded: ` +
      `>= ${TARGET_EVENTS_PER_S / 1000}k ev/s and >= ${TARGET_RATIO}x publish -> store at saturation; p99 receive -> stored < ${TARGET_P99_MS} ms at ${TARGET_P99_RATE / 1000}k/s)\n`,
  );
  process.stdout.write(`${storeFileSystemLine()}\n`);
  const buses: { name: string; make: () => Bus }[] = [{ name: 'memory', make: () => new MemoryBus({ clientId: 'bench-e2e' }) }];
  const brokers = (process.env['KAFKA_BROKERS'] ?? process.env['KAFKA_TEST_BROKERS'] ?? '').split(',').filter((b) => b.length > 0);
  if (brokers.length > 0)
    buses.push({ name: 'kafka', make: () => new KafkaBus({ brokers, clientId: `bench-e2e-${Date.now()}`, maxWaitTimeInMs: 20 }) });
  else process.stdout.write('(Kafka skipped: set KAFKA_BROKERS or KAFKA_TEST_BROKERS)\n');
  for (const b of buses) {
    const embedded = b.name === 'memory';
    // Saturation (the 2 shared cores are noisy): PAIRS alternating baseline / end-to-end rounds on one pipeline, each
    // printed, then the medians and the median of the pairs' ratios (the verdict); then the connectors on the
    // writer's thread for comparison; then the latency part.
    if (!FLOOD) {
      await steadyRounds(b.name, b.make, embedded);
      continue;
    }
    const { base: bases, e2e: floods } = await pairedSaturation(b.make, PAIRS);
    bases.forEach((r, i) => {
      const e = floods[i] as Result;
      process.stdout.write(`${line(`${b.name}: pair #${i + 1} baseline publish -> store`, r)}\n`);
      process.stdout.write(`${line(`${b.name}: pair #${i + 1} sandbox -> connectors -> store`, e, r)}\n`);
    });
    const base = median(bases);
    const mid = median(floods);
    if (!base || !mid) continue;
    const rate = rateOf(mid);
    const pairRatios = floods.map((e, i) => rateOf(e) / rateOf(bases[i] as Result)).sort((x, y) => x - y);
    const ratio = pairRatios[Math.floor(pairRatios.length / 2)] as number;
    process.stdout.write(`${line(`${b.name}: baseline publish -> store, median`, base)}\n`);
    const verdict = embedded
      ? `  targets >= ${TARGET_EVENTS_PER_S} ev/s: ${rate >= TARGET_EVENTS_PER_S ? 'met' : 'NOT met'}, >= ${TARGET_RATIO}x: ${ratio >= TARGET_RATIO ? 'met' : 'NOT met'}`
      : "  (reported beside the embedded figure; the targets are the embedded default's)";
    process.stdout.write(`${line(`${b.name}: sandbox -> connectors -> store, ingest thread, median`, mid, base)}\n`);
    process.stdout.write(
      `${b.name}: ratio to the baseline, median of the ${pairRatios.length} pairs ${ratio.toFixed(2)}x ` +
        `(pairs ${pairRatios.map((x) => x.toFixed(2)).join(', ')})${verdict}\n`,
    );
    const oneThread = await endToEnd(b.make, flood, FLOOD_ROUNDS, false, { warmup: WARMUP_ROUNDS });
    oneThread.forEach((r, i) =>
      process.stdout.write(`${line(`${b.name}: sandbox -> connectors -> store, one thread #${i + 1}`, r, base)}\n`),
    );
    const one = median(oneThread);
    if (one)
      process.stdout.write(
        `${line(`${b.name}: sandbox -> connectors -> store, one thread, median`, one, base)}  (INGEST_THREAD=false, for comparison)\n`,
      );
    await steadyRounds(b.name, b.make, embedded);
  }
}

/** The latency part: one steady round per rate of RATES, with the connectors on their own thread. */
async function steadyRounds(name: string, make: () => Bus, embedded: boolean): Promise<void> {
  for (const r of RATES) {
    const [lat] = await endToEnd(make, steady(r, 10), 1, true, { hops: true });
    if (!lat) continue;
    const verdict =
      embedded && r === TARGET_P99_RATE ? `  target p99 < ${TARGET_P99_MS} ms: ${lat.p99Ms < TARGET_P99_MS ? 'met' : 'NOT met'}` : '';
    process.stdout.write(`${line(`${name}: steady ${r}/s for 10 s (latency)`, lat)}${verdict}\n    ${lat.hops ?? ''}\n`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  runIngestE2eBench().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
