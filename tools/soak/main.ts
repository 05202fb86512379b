/**
 * `npm run soak -- --minutes N [--rate R] [--sample-seconds S] [--heap-profile] [--no-prefill]`: the demo (every role in one
 * process: connectors, bus, raw writer, snapshot processor, API) under the sandbox market's load plus a steady API load of
 * R requests/s (default 20) rotating over the routes, for N minutes (default 30) from the moment every symbol's
 * first snapshot is served and the product's in-memory bounds are full (prefill.ts; `--no-prefill` leaves it out;
 * the time to each point is printed). The sandbox market (the demo's: same seed, venues and
 * symbols) runs in this load process, on the load side, and the demo connects to it through SANDBOX_URLS as the
 * product connects to real venues: the product's memory is measured without the fake venues' bounded memories (their
 * REST recent-trade look-backs fill over the first hour at the demo's rates). Every S seconds (default 60) it
 * prints the RSS of each process (median of 5 s polls; the product and this load process), the product's live V8
 * heap (after a full GC forced through the inspector, live-heap.ts), the store's tracked memory (store-memory.ts), bus lag, the
 * oldest symbol's snapshot age, ingest events/s and the error counts; at the end the verdict of verdict.ts (memory
 * flat, zero errors, snapshots fresh) and exit code 0 (pass) or 1. The product's logs go to .tmp/soak/demo-<start>.log.
 * `--heap-profile`: V8's sampling heap profiler runs in the product from the end of the warm-up to the end; the soak
 * prints the allocation sites of what it kept alive (retained.ts) and writes the profile to
 * .tmp/soak/heap-<start>.heapprofile (Chrome DevTools > Memory > Load).
 */
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { freePort } from '../free-port.ts';
import { DEMO_LEDGER_CAPACITY } from '#app/runtime/sandbox-feed.ts';
import { loadConfig } from '#platform/settings.ts';
import { startSandbox } from '#sandbox/sandbox.ts';
import { SANDBOX_VENUES, type SandboxVenue } from '#sandbox/market/venues.ts';
import { inspectorUrl, LiveHeap } from './live-heap.ts';
import { maxOf, parseExposition, sumOf, type Sample } from './prom-text.ts';
import { verdict, warmupOf, type SoakSample } from './verdict.ts';
import { retainedSites, type SamplingProfile } from './retained.ts';
import { prefill } from './prefill.ts';
import { storeMemoryMb } from './store-memory.ts';
import { FLOW_SYMBOLS } from '#processors/analytics/dealer.ts';

const POLL_MS = 5_000;
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = ['--import', 'tsx', join(ROOT, 'app/cli/main.ts')];

/** The API load: every data route family the explorer and API clients hit, current and point in time. */
const ROUTES = [
  '/v2/gex/levels?symbol=BTCUSDT',
  '/v2/gex/levels?symbol=ETHUSDT&positioning=std&include=ranked,zones',
  '/v2/gex/levels?symbol=BTCUSDT&include=profile,by_strike&as_of=AT',
  '/v2/gex/strike-expiry-heatmap?symbol=BTCUSDT',
  '/v2/gex/max-pain?symbol=SOLUSDT',
  '/v2/multi/gex/levels?symbols=BTCUSDT,ETHUSDT,SOLUSDT,HYPEUSDT',
  '/v2/options/chain?symbol=BTCUSDT',
  '/v2/options/iv/smile?symbol=ETHUSDT',
  '/v2/options/iv/term-structure?symbol=BTCUSDT',
  '/v2/options/greeks/gamma?symbol=BTCUSDT',
  '/v2/tape/recent?symbol=BTCUSDT&limit=200',
  '/v2/tape/flow-by-strike?symbol=BTCUSDT',
  '/v2/market/bundle?symbol=BTCUSDT&interval=5m&hours=24',
  '/v2/market/candles?symbol=ETHUSDT&interval=1m&hours=6',
  '/v2/symbols',
];

const SYMBOLS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'HYPEUSDT'] as const;
const READY_TIMEOUT_MS = 300_000;

/** Ms from `started` until /v2/gex/levels answers 200 for every symbol (null: not within READY_TIMEOUT_MS). */
async function untilReady(base: string, key: string, started: number): Promise<number | null> {
  const pending = new Set<string>(SYMBOLS);
  while (pending.size > 0) {
    if (Date.now() - started > READY_TIMEOUT_MS) return null;
    for (const sym of [...pending]) {
      const status = await fetch(`${base}/v2/gex/levels?symbol=${sym}`, {
        headers: { 'x-api-key': key },
        signal: AbortSignal.timeout(30_000),
      }).then(
        async (r) => {
          await r.arrayBuffer();
          return r.status;
        },
        () => 0,
      );
      if (status === 200) pending.delete(sym);
    }
    if (pending.size > 0) await sleep(1_000);
  }
  return Date.now() - started;
}

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name} must be a positive number`);
  return v;
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m === null ? Number.NaN : Number(m[1]) / 1024;
}

const r1 = (x: number | null): string => (x === null || Number.isNaN(x) ? '-' : x.toFixed(1));

/** The sampling profile: written for DevTools, and its largest retained allocation sites printed. */
async function reportRetained(liveHeap: LiveHeap, path: string): Promise<void> {
  try {
    const profile = (await liveHeap.stopSampling()) as SamplingProfile;
    writeFileSync(path, JSON.stringify(profile));
    const mb = (b: number): string => (b / 1048576).toFixed(2).padStart(7);
    console.log(
      `\nretained since the warm-up (sampled, after a full GC; profile ${path}):\n  early_mb  late_mb  allocation site (innermost project frames)`,
    );
    for (const r of retainedSites(profile, ROOT)) console.log(`  ${mb(r.earlyBytes)}  ${mb(r.lateBytes)}  ${r.site}`);
    console.log('  (early: allocated in the first half of the profiled minutes and still alive: what accumulates; late only: churn)');
  } catch (err) {
    console.log(`soak: no heap profile (${err instanceof Error ? err.message : String(err)})`);
  }
}

async function main(): Promise<number> {
  const minutes = flag('minutes', 30);
  const rate = flag('rate', 20);
  const sampleMs = flag('sample-seconds', 60) * 1000;
  const dataDir = mkdtempSync(join(tmpdir(), 'gex-soak-'));
  const [port, metricsPort, adminPort, sqlPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  // The venue side: the demo's own sandbox market (its settings from the same environment), in this process.
  const config = loadConfig(process.env);
  const sandbox = await startSandbox({
    seed: config.sandboxSeed,
    venues: config.venues.filter((v): v is SandboxVenue => (SANDBOX_VENUES as readonly string[]).includes(v)),
    symbols: config.symbols,
    ledgerCapacity: DEMO_LEDGER_CAPACITY,
  });
  const sandboxUrls = join(dataDir, 'sandbox-urls.json');
  writeFileSync(sandboxUrls, JSON.stringify(sandbox.urls));
  const env = {
    ...process.env,
    SANDBOX_URLS: sandboxUrls,
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(port),
    METRICS_PORT: String(metricsPort),
    ADMIN_PORT: String(adminPort),
    CLICKHOUSE_HTTP_PORT: String(sqlPort),
  };
  // The product's log outlives the run (the data directory does not): .tmp/soak/demo-<start>.log.
  const logPath = join(ROOT, '.tmp', 'soak', `demo-${new Date().toISOString().replace(/[:.]/g, '-')}.log`);
  mkdirSync(dirname(logPath), { recursive: true });
  const log = createWriteStream(logPath);
  // The inspector (loopback, any free port) lets the soak force a GC before reading the live heap (live-heap.ts).
  const demo = spawn(process.execPath, ['--inspect=127.0.0.1:0', ...CLI, 'demo'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  demo.stdout.pipe(log);
  demo.stderr.pipe(log);
  let stderrHead = '';
  const onStderr = (chunk: Buffer): void => {
    stderrHead += chunk.toString('utf8');
    if (stderrHead.length > 65_536 || inspectorUrl(stderrHead) !== null) demo.stderr.off('data', onStderr);
  };
  demo.stderr.on('data', onStderr);
  const stop = async (): Promise<void> => {
    if (demo.exitCode === null) {
      demo.kill('SIGTERM');
      await Promise.race([new Promise((r) => demo.once('exit', r)), sleep(30_000)]);
      if (demo.exitCode === null) demo.kill('SIGKILL');
    }
    await sandbox.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  process.once('SIGINT', () => void stop().then(() => process.exit(130)));

  const base = `http://127.0.0.1:${port}`;
  const scrape = async (): Promise<Sample[]> =>
    parseExposition(
      await fetch(`http://127.0.0.1:${metricsPort}/metrics`).then(
        (r) => r.text(),
        () => '',
      ),
    );
  const started = Date.now();
  while (
    !(await fetch(`${base}/v2/health`).then(
      (r) => r.status < 500,
      () => false,
    ))
  ) {
    if (demo.exitCode !== null || Date.now() - started > 180_000) {
      console.error(`soak: the demo did not come up (log: ${logPath})`);
      return 1;
    }
    await sleep(500);
  }
  // An enterprise key (no per-minute burst), created through the running API's admin endpoint.
  const cli = (...args: string[]): string => {
    const r = spawnSync(process.execPath, [...CLI, ...args], { env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`gex ${args.join(' ')}: ${r.stderr}`);
    return r.stdout.trim();
  };
  const inspector = inspectorUrl(stderrHead);
  if (inspector === null) {
    console.error('soak: the demo did not print its inspector URL');
    await stop();
    return 1;
  }
  const liveHeap = new LiveHeap(inspector);
  cli('users', 'upsert', 'soak', '--plan', 'enterprise', '--status', 'active');
  const key = cli('keys', 'create', '--user', 'soak').split('\n').pop() ?? '';
  // The soak judges the steady state: the API load starts once every symbol's first snapshot is served (start-up
  // — migrations, the first flood of listings and tickers into the store, the first snapshots — is reported, not
  // loaded: requests sent into it queued behind the start-up writes for up to 10 s in earlier runs).
  const ready = await untilReady(base, key, started);
  if (ready === null) {
    console.error(`soak: no snapshot of every symbol within ${READY_TIMEOUT_MS / 1000} s (log: ${logPath})`);
    await stop();
    return 1;
  }
  console.log(`soak: ready (health, then a snapshot of ${SYMBOLS.join(', ')}) ${(ready / 1000).toFixed(1)} s after the start`);
  if (!process.argv.includes('--no-prefill')) {
    const filled = await prefill({
      sandbox,
      scrape,
      symbols: config.symbols,
      flowSymbols: FLOW_SYMBOLS.filter((s) => config.symbols.includes(s)),
      tapeTailRows: config.tapeTailRows,
      liveFlowTrades: config.liveFlowTrades,
      log: (line) => console.log(`soak: ${line}`),
    });
    if (filled === null || demo.exitCode !== null) {
      console.error(`soak: the pre-fill did not complete (log: ${logPath})`);
      await stop();
      return 1;
    }
  }
  console.log(
    `soak: demo pid ${demo.pid} on ${base}, ${minutes} min, ${rate} req/s over ${ROUTES.length} routes, sample every ${sampleMs / 1000} s; logs ${logPath}`,
  );

  const counts = { ok: 0, c4xx: 0, c5xx: 0, failed: 0, shed: 0 };
  /** 4xx/5xx per route template and status (404 before a symbol's first snapshot is expected in the first minute). */
  const refusals = new Map<string, number>();
  const failures: string[] = [];
  let inFlight = 0;
  let i = 0;
  const loadStart = Date.now();
  const end = loadStart + minutes * 60_000;
  const load = setInterval(() => {
    if (inFlight >= 64) {
      counts.shed++;
      return;
    }
    const route = ROUTES[i++ % ROUTES.length] as string;
    const path = route.replace('AT', new Date(Date.now() - 120_000).toISOString());
    inFlight++;
    fetch(`${base}${path}`, { headers: { 'x-api-key': key }, signal: AbortSignal.timeout(15_000) })
      .then(async (r) => {
        await r.arrayBuffer();
        if (r.status >= 500) {
          counts.c5xx++;
          refusals.set(`${r.status} ${route}`, (refusals.get(`${r.status} ${route}`) ?? 0) + 1);
        } else if (r.status >= 400) {
          counts.c4xx++;
          refusals.set(`${r.status} ${route}`, (refusals.get(`${r.status} ${route}`) ?? 0) + 1);
        } else counts.ok++;
      })
      .catch((err: unknown) => {
        counts.failed++;
        if (failures.length < 5) failures.push(`${route}: ${err instanceof Error ? `${err.name} ${err.message}` : String(err)}`);
      })
      .finally(() => inFlight--);
  }, 1000 / rate);

  const heapProfile = process.argv.includes('--heap-profile');
  let sampling = false;
  const samples: SoakSample[] = [];
  let lastEvents: number | null = null;
  let lastAt = Date.now();
  console.log(
    'minute  rss_demo_mb  rss_load_mb  live_heap_mb  store_mb  caches_mb  bus_lag  snap_age_s  events_per_s  api_2xx  api_4xx  api_5xx  load_failed  shed',
  );
  while (Date.now() < end && demo.exitCode === null) {
    // Within a sample period, RSS is polled every 5 s (its median is the period's RSS); at the period's end a full
    // GC is forced through the inspector and the heap then in use is the live heap.
    const periodEnd = Math.min(end, Date.now() + sampleMs);
    const rss: number[] = [];
    while (Date.now() < periodEnd && demo.exitCode === null) {
      await sleep(Math.min(POLL_MS, Math.max(0, periodEnd - Date.now())));
      if (demo.exitCode === null) rss.push(rssMb(demo.pid as number));
    }
    rss.sort((a, b) => a - b);
    const heap = demo.exitCode === null ? await liveHeap.measureMb().catch(() => null) : null;
    const store = await storeMemoryMb(`http://127.0.0.1:${sqlPort}`);
    const m: Sample[] = await scrape();
    const now = Date.now();
    const events = sumOf(m, 'gex_ingest_events_total');
    const eps = events === null || lastEvents === null ? null : (events - lastEvents) / ((now - lastAt) / 1000);
    lastEvents = events;
    lastAt = now;
    const api5xx = sumOf(m, 'gex_api_request_duration_seconds_count', (l) => (l['status'] ?? '').startsWith('5')) ?? 0;
    const s: SoakSample = {
      minute: (now - loadStart) / 60_000,
      rssMb: { demo: rss[Math.floor(rss.length / 2)] ?? Number.NaN, load: process.memoryUsage().rss / 1048576 },
      heapMb: heap,
      snapshotAgeS: maxOf(m, 'gex_snapshot_age_seconds'),
      api5xx,
      loadErrors: counts.failed + counts.c5xx,
    };
    samples.push(s);
    if (heapProfile && !sampling && s.minute >= warmupOf(minutes) && demo.exitCode === null) {
      sampling = await liveHeap.startSampling().then(
        () => true,
        () => false,
      );
      console.log(
        sampling
          ? `soak: sampling heap profiler started at minute ${s.minute.toFixed(1)}`
          : 'soak: the sampling heap profiler did not start',
      );
    }
    const lag = sumOf(m, 'gex_bus_consumer_lag_messages');
    console.log(
      [
        s.minute.toFixed(1).padStart(6),
        r1(s.rssMb['demo'] ?? null).padStart(11),
        r1(s.rssMb['load'] ?? null).padStart(11),
        r1(s.heapMb).padStart(12),
        r1(store?.trackedMb ?? null).padStart(8),
        r1(store?.cachesMb ?? null).padStart(9),
        r1(lag).padStart(7),
        r1(s.snapshotAgeS).padStart(10),
        r1(eps).padStart(12),
        String(counts.ok).padStart(7),
        String(counts.c4xx).padStart(7),
        String(api5xx).padStart(7),
        String(counts.failed).padStart(11),
        String(counts.shed).padStart(4),
      ].join('  '),
    );
  }
  clearInterval(load);
  // Let the requests in flight finish before the product stops (else they fail at shutdown, not during the run).
  for (let i = 0; i < 200 && inFlight > 0; i++) await sleep(100);
  if (sampling && demo.exitCode === null) await reportRetained(liveHeap, logPath.replace(/demo-([^/]+)\.log$/, 'heap-$1.heapprofile'));
  liveHeap.close();
  const crashed = demo.exitCode !== null;
  await stop();
  const v = verdict(samples);
  console.log(
    `\nwarm-up ${v.warmupMinutes.toFixed(1)} min; RSS slope MB/min ${Object.entries(v.rssSlopeMbPerMin)
      .map(([p, k]) => `${p} ${k.toFixed(2)}`)
      .join(
        ', ',
      )}; heap slope ${r1(v.heapSlopeMbPerMin)} MB/min; requests ${counts.ok} 2xx, ${counts.c4xx} 4xx, ${counts.c5xx} 5xx, ${counts.failed} failed, ${counts.shed} shed`,
  );
  if (refusals.size > 0)
    console.log(
      `4xx/5xx by route: ${[...refusals]
        .sort((a, b) => b[1] - a[1])
        .map(([k, n]) => `${k} x${n}`)
        .join('; ')}`,
    );
  if (failures.length > 0) console.log(`failed requests (first ${failures.length}): ${failures.join('; ')}`);
  if (crashed) console.log('FAIL: the demo process exited during the soak');
  console.log(v.pass && !crashed ? 'PASS: memory flat, zero errors, snapshots fresh' : `FAIL: ${v.reasons.join('; ')}`);
  return v.pass && !crashed ? 0 : 1;
}

process.exitCode = await main();
