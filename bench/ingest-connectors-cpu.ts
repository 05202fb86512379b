/**
 * The connectors' own CPU per trade, without the store: the sandbox market (a second process, frames built before
 * each round) -> WebSocket -> the real connectors on their own thread (startIngestThread, as the product runs them)
 * -> a bus that takes every publish at once. Prints, per round of BENCH_CONNECTORS_EVENTS (200,000) option trades,
 * the wall time and the CPU seconds by thread of this process (bench/thread-cpu.ts: `gex-ingest` is the connectors'
 * thread, `node` Node's helpers: garbage collection, compilers), then the median of the timed rounds. This is the C
 * of bench/ingest-e2e.ts' saturation ratio (bench/RESULTS.md "ingest"): what the end-to-end round adds to the
 * baseline's work on the same cores.
 * Run: node --import tsx bench/ingest-connectors-cpu.ts   (BENCH_CONNECTORS_ROUNDS timed rounds, 6; one warm-up first;
 * BENCH_CONNECTORS_PROFILE=FILE writes the connectors' thread's CPU profile there, IngestThreadOptions.cpuProfile;
 * BENCH_CONNECTORS_THREAD=false runs the connectors on this process's event loop instead, as INGEST_THREAD=false does,
 * and counts the `main` thread)
 */
import { pathToFileURL } from 'node:url';
import type { Bus, BusConsumer, BusMessage, TopicSpec } from '#bus/types.ts';
import type { VenueUrls } from '#ingest/connector/types.ts';
import { TOPICS, type Venue } from '#schemas/events.ts';
import { startIngestThread } from '#ingest/thread/start-ingest-thread.ts';
import { startIngest } from '#ingest/pipeline/run-ingest.ts';
import { connectorUrlsFor } from '#sandbox/connector-urls.ts';
import { SANDBOX_VENUES, type SandboxVenue } from '#sandbox/market/venues.ts';
import { forkSandboxProcess } from '#sandbox/harness/sandbox-process.ts';
import type { VenueUrls as SandboxUrls } from '#sandbox/servers/types.ts';
import { threadCpu, threadCpuByName, threadCpuSince } from './thread-cpu.ts';

const SYMBOLS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'HYPEUSDT'] as const;
const TOTAL = Number(process.env['BENCH_CONNECTORS_EVENTS'] ?? 200_000);
const ROUNDS = Number(process.env['BENCH_CONNECTORS_ROUNDS'] ?? 6);
/** Option trades per venue in one burst of the sandbox (as bench/ingest-e2e.ts' flood). */
const PER_VENUE = 1_000;
/** Where to write the connectors' thread's CPU profile (a `.cpuprofile`), if set. */
const PROFILE = process.env['BENCH_CONNECTORS_PROFILE'];
/** The connectors on their own thread (the product's default), or on the event loop. */
const ON_THREAD = process.env['BENCH_CONNECTORS_THREAD'] !== 'false';
/** The thread whose CPU is the connectors'. */
const CONNECTORS_THREAD = ON_THREAD ? 'gex-ingest' : 'main';

/** Takes every publish at once and counts the option trades (the bound: no store, no consumer). */
class CountingBus implements Bus {
  readonly kind = 'memory' as const;
  optionTrades = 0;
  ensureTopics(_topics: readonly TopicSpec[]): Promise<void> {
    return Promise.resolve();
  }
  publish(topic: string, messages: readonly BusMessage[]): Promise<void> {
    if (topic === TOPICS.option_trade) this.optionTrades += messages.length;
    return Promise.resolve();
  }
  subscribe(): Promise<BusConsumer> {
    return Promise.reject(new Error('the counting bus only takes publishes'));
  }
  lag(): Promise<readonly { partition: number; committed: string; end: string }[]> {
    return Promise.resolve([]);
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function runConnectorsCpuBench(): Promise<void> {
  if (PROFILE !== undefined && !ON_THREAD)
    throw new Error('BENCH_CONNECTORS_PROFILE profiles the connectors thread; on the event loop, run node with --cpu-prof instead');
  process.stdout.write(
    `\n== connectors' CPU: sandbox -> WS -> connectors (${ON_THREAD ? 'own thread' : 'the event loop'}) -> a bus that takes everything (${TOTAL} option trades a round)\n`,
  );
  const child = await forkSandboxProcess(new URL('./sandbox-process.ts', import.meta.url), []);
  const delivered = async (cmd: object): Promise<number> => Number((await child.ask(cmd))['delivered']);
  const sandboxUrls = child.ready['urls'] as Partial<Record<SandboxVenue, SandboxUrls>>;
  const urls: Partial<Record<Venue, VenueUrls>> = {};
  for (const v of SANDBOX_VENUES) {
    const u = sandboxUrls[v];
    if (u) urls[v] = connectorUrlsFor(v, u);
  }
  const bus = new CountingBus();
  const options = { venues: SANDBOX_VENUES, symbols: SYMBOLS, urls, publisher: { maxBatch: 5000, lingerMs: 10 } };
  const ingest: { connections(): Promise<readonly { open: number; planned: number }[]>; stop(): Promise<void> } = ON_THREAD
    ? await startIngestThread(bus, { ...options, ...(PROFILE === undefined ? {} : { cpuProfile: PROFILE }) })
    : await startIngest({ bus, ...options }).then((r) => ({
        connections: () => Promise.resolve(r.venues.map((v) => v.connections())),
        stop: () => r.stop(),
      }));
  try {
    for (const deadline = Date.now() + 20_000; ; await sleep(50)) {
      if ((await ingest.connections()).every((c) => c.open === c.planned)) break;
      if (Date.now() > deadline) throw new Error('sandbox connections did not open');
    }
    const ingestCpu: number[] = [];
    const helperCpu: number[] = [];
    for (let round = -1; round < ROUNDS; round++) {
      const before = await delivered({ cmd: 'delivered' });
      const offered =
        (await delivered({ cmd: 'prepare', perVenue: PER_VENUE, bursts: Math.ceil(TOTAL / (PER_VENUE * SANDBOX_VENUES.length)) })) - before;
      await sleep(300);
      const counted0 = bus.optionTrades;
      const threads0 = threadCpu();
      const t0 = performance.now();
      await delivered({ cmd: 'release' });
      for (const deadline = Date.now() + 120_000; bus.optionTrades - counted0 < offered; await sleep(2))
        if (Date.now() > deadline) throw new Error('the connectors did not publish every trade');
      const seconds = (performance.now() - t0) / 1000;
      const threads1 = threadCpu();
      const byName = threadCpuByName(threads0, threads1);
      const threads = threadCpuSince(threads0, threads1);
      const ingestS = byName.get(CONNECTORS_THREAD) ?? 0;
      const label = round < 0 ? 'warm-up' : `round #${round + 1}`;
      process.stdout.write(
        `${label.padEnd(9)} ${offered} trades ${seconds.toFixed(2)} s ${Math.round(offered / seconds)} trades/s  ` +
          `connectors (${CONNECTORS_THREAD}) ${((ingestS * 1e6) / offered).toFixed(2)} us a trade  CPU-s by thread: ${threads}\n`,
      );
      if (round < 0) continue;
      ingestCpu.push(ingestS);
      helperCpu.push(byName.get('node') ?? 0);
    }
    const med = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
    process.stdout.write(
      `median of ${ingestCpu.length}: connectors (${CONNECTORS_THREAD}) ${med(ingestCpu).toFixed(2)} CPU-s a round (${((med(ingestCpu) * 1e6) / TOTAL).toFixed(2)} us a trade; ` +
        `rounds ${Math.min(...ingestCpu).toFixed(2)}-${Math.max(...ingestCpu).toFixed(2)}), Node's helpers ${med(helperCpu).toFixed(2)} CPU-s\n`,
    );
  } finally {
    await ingest.stop();
    await child.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  runConnectorsCpuBench().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
