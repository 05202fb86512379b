/**
 * The role outage run: one sandbox process, two private brokers (own ports and data directories: a shared broker is
 * never touched), the two deployments (deployments.ts: ingest, processors and query-api as separate processes, and
 * `gex all`), a feed client and an API poller per deployment, the sandbox flooding option trades throughout; then the
 * planned outages (plan.ts) one after another, each on both brokers at once, and at the end the stored trades of both
 * stores against the sandbox ledger. Everything is stopped at the end, also on failure.
 */
import { join } from 'node:path';
import { forkSandboxProcess, type SandboxProcess } from '#sandbox/harness/sandbox-process.ts';
import type { MarketSymbol } from '#schemas/events.ts';
import { ApiPoller } from '../api-poller.ts';
import { freePort } from '../ports.ts';
import { startPrivateBrokerAsync, type BrokerControl } from '../kafka-broker.ts';
import type { LedgerMark } from '../ledger-compare.ts';
import type { TradeCount } from '../ledger-compare.ts';
import { startRoleProcesses, type Deployment, type RoleProcesses } from './deployments.ts';
import { FeedWatch } from './feed-watch.ts';
import { compareWithSandbox } from './ledger.ts';
import { runDeploymentOutage, type DeploymentOutage } from './outage.ts';
import { planOutages, tickFor, type PlannedOutage } from './plan.ts';
import { latestSnapshots, metricTotal } from './probes.ts';

export interface RoleOutageOptions {
  readonly root: string;
  readonly workDir: string;
  readonly seed: number;
  /** Flood: option trades per venue every `everyMs`. */
  readonly perVenue: number;
  readonly everyMs: number;
  readonly log: (line: string) => void;
}

export interface RoleOutageResult {
  readonly seed: number;
  readonly plan: readonly PlannedOutage[];
  /** Per planned outage, one entry per deployment. */
  readonly outages: readonly (readonly DeploymentOutage[])[];
  readonly symbols: Readonly<Record<Deployment['name'], readonly string[]>>;
  readonly ledger: readonly { readonly deployment: Deployment['name']; readonly count: TradeCount }[];
  /** Every process the test started still runs at the end (role processes and joiners). */
  readonly aliveAtEnd: Readonly<Record<string, boolean>>;
  /** Per process, consumers run again after kafkajs stopped them for good (gex_bus_consumer_restarts_total). */
  readonly consumerRestarts: Readonly<Record<string, number>>;
  /** From the start of the first broker to the first outage, s. */
  readonly startupSeconds: number;
}

const INTERVAL_MS = 30_000;
/**
 * The venue and symbols the sandbox serves and the roles run (VENUES, SYMBOLS): Deribit (its REST recent trades
 * recover whatever an ingest misses, as in the chaos harness) and two symbols keep a loaded 2-core machine able to
 * follow (the tickers of two venues and four symbols, parsed and stored twice, made the snapshot loops fall behind
 * before any outage); what a broker outage does to a role does not depend on how many venues or symbols it handles.
 */
const RUN_VENUES: readonly string[] = ['deribit'];
const RUN_SYMBOLS: readonly MarketSymbol[] = ['BTCUSDT', 'ETHUSDT'];
/** Every symbol's first snapshot in both stores; afterwards the symbols that have one are the ones checked. */
const WARM_UP_MS = 150_000;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function snapshotSymbols(d: Deployment, until: number): Promise<string[]> {
  for (;;) {
    const have = await latestSnapshots(d.store).catch(() => new Map<string, number>());
    if (RUN_SYMBOLS.every((s) => have.has(s)) || (Date.now() > until && have.size > 0)) return [...have.keys()].sort();
    if (Date.now() > until + 60_000) throw new Error(`${d.name}: no snapshot stored ${(WARM_UP_MS + 60_000) / 1000} s into the run`);
    await sleep(2_000);
  }
}

export async function runRoleOutages(o: RoleOutageOptions): Promise<RoleOutageResult> {
  const plan = planOutages(o.seed, INTERVAL_MS);
  o.log(
    `seed ${o.seed} (replay: ROLE_OUTAGE_SEED=${o.seed}); plan: ${plan.map((p) => `${p.downMs / 1000} s @ ${p.aim} ${p.offsetMs} ms`).join(', ')}`,
  );
  const started = Date.now();
  const urlsFile = join(o.workDir, 'sandbox-urls.json');
  let sandbox: SandboxProcess | null = null;
  let procs: RoleProcesses | null = null;
  const brokers: BrokerControl[] = [];
  const feeds: FeedWatch[] = [];
  const pollers: ApiPoller[] = [];
  try {
    const ports = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    const broker = async (dir: string, port: number, controllerPort: number): Promise<BrokerControl> => {
      const b = await startPrivateBrokerAsync(o.root, join(o.workDir, dir), port, controllerPort);
      brokers.push(b);
      return b;
    };
    sandbox = await forkSandboxProcess(
      new URL('../sandbox-child.ts', import.meta.url),
      [],
      [urlsFile, RUN_VENUES.join(','), RUN_SYMBOLS.join(',')],
    );
    const [a, b] = await Promise.all([
      broker('kafka-split', ports[0] as number, ports[1] as number),
      broker('kafka-all', ports[2] as number, ports[3] as number),
    ]);
    o.log(`brokers up (split ${a.brokers.join()}, all ${b.brokers.join()}) after ${(Date.now() - started) / 1000} s; starting the roles`);
    procs = await startRoleProcesses({
      root: o.root,
      workDir: o.workDir,
      brokers: [a, b],
      venues: RUN_VENUES,
      symbols: RUN_SYMBOLS,
      sandboxUrlsFile: urlsFile,
    });
    const { deployments } = procs;
    for (const d of deployments) {
      feeds.push(await FeedWatch.open(d.apiUrl, d.apiKey));
      const poller = new ApiPoller([d.apiUrl], d.apiKey);
      poller.start();
      pollers.push(poller);
    }
    const mark = (await sandbox.ask({ cmd: 'mark' }))['mark'] as LedgerMark;
    const sinceMs = Date.now() - 60_000;
    await sandbox.ask({ cmd: 'flood', perVenue: o.perVenue, everyMs: o.everyMs });
    o.log(`roles up after ${(Date.now() - started) / 1000} s; flooding; waiting for every symbol's first snapshot`);
    const warmUntil = Date.now() + WARM_UP_MS;
    const symbolLists = await Promise.all(deployments.map((d) => snapshotSymbols(d, warmUntil)));
    const symbols = Object.fromEntries(deployments.map((d, i) => [d.name, symbolLists[i] ?? []])) as Record<Deployment['name'], string[]>;
    const startupSeconds = (Date.now() - started) / 1000;
    o.log(`snapshots of ${JSON.stringify(symbols)} after ${startupSeconds} s`);

    const outages: DeploymentOutage[][] = [];
    for (const planned of plan) {
      const tick = tickFor(Date.now(), planned.offsetMs, 2_000, INTERVAL_MS);
      const procsNow = procs;
      const row = await Promise.all(
        deployments.map((d, i) =>
          runDeploymentOutage(
            d,
            {
              sup: procsNow.sup,
              metricsUrl: procsNow.metricsUrl,
              feed: feeds[i] as FeedWatch,
              poller: pollers[i] as ApiPoller,
              symbols: symbols[d.name],
              intervalMs: INTERVAL_MS,
              log: o.log,
            },
            planned,
            tick,
          ),
        ),
      );
      for (const r of row) o.log(`${r.deployment} after the ${planned.downMs / 1000} s outage: ${JSON.stringify(r.recovery)}`);
      outages.push(row);
    }

    await sandbox.ask({ cmd: 'calm' });
    const until = (await sandbox.ask({ cmd: 'mark' }))['mark'] as LedgerMark;
    const sbNow = sandbox;
    const counts = await Promise.all(deployments.map((d) => compareWithSandbox(d, sbNow, mark, until, sinceMs)));
    const ledger = deployments.map((d, i) => ({ deployment: d.name, count: counts[i] as TradeCount }));
    const aliveAtEnd: Record<string, boolean> = {};
    const consumerRestarts: Record<string, number> = {};
    for (const d of deployments) {
      for (const name of [...d.roles, d.joiner]) {
        aliveAtEnd[name] = procs.sup.alive(name);
        consumerRestarts[name] = (await metricTotal(procs.metricsUrl(name), 'gex_bus_consumer_restarts_total')) ?? Number.NaN;
      }
    }
    return { seed: o.seed, plan, outages, symbols, ledger, aliveAtEnd, consumerRestarts, startupSeconds };
  } finally {
    for (const p of pollers) p.stop();
    for (const f of feeds) f.close();
    await procs?.close();
    await Promise.all(brokers.map((b) => b.stopAsync()));
    await sandbox?.stop();
  }
}
