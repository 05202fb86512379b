/**
 * One scenario's common course: every process up and both processors in the group, flood started, the fault
 * injected (scenarios.ts), flood ended, the pipeline drained (stored count unchanged and nothing uncommitted), then
 * the stored trades compared with the sandbox ledger (ledger-compare.ts) and the API answers counted.
 */
import type { SandboxProcess } from '#sandbox/harness/sandbox-process.ts';
import { METRIC } from '#platform/metrics/names.ts';
import { parseExposition, sumOf } from '../soak/prom-text.ts';
import { PROCS, type Cluster, type ProcName } from './cluster.ts';
import type { ApiPoller } from './api-poller.ts';
import type { BrokerControl } from './kafka-broker.ts';
import { compareSlice, type LedgerMark, type LedgerSlice, type TradeCount } from './ledger-compare.ts';
import { settled, type LostSample } from './settle.ts';

export interface ChaosEnv {
  readonly cluster: Cluster;
  readonly sandbox: SandboxProcess;
  readonly poller: ApiPoller;
  /** The harness's own broker (null: an external one, which the broker scenario does not stop). */
  readonly broker: BrokerControl | null;
  readonly floodMs: number;
  /** When the fault is injected, as a fraction of the flood (0.3 = 30 % into it). */
  readonly faultAt: number;
  /** Flood: option trades per venue every `everyMs`. */
  readonly perVenue: number;
  readonly everyMs: number;
  readonly storeDownMs: number;
  /** The venues the sandbox serves (and the flood and comparison cover). */
  readonly venues: readonly string[];
}

/** What a scenario's fault did: when it began and ended, when the faulty part served again, and its own checks. */
export interface FaultReport {
  readonly start: number;
  readonly end: number;
  readonly backAt: number;
  readonly checks: Readonly<Record<string, number | boolean | string>>;
  /** Resolves true once the fault's own repair has run (e.g. the restarted ingest's REST fill); polled before comparing. */
  readonly repaired?: () => Promise<boolean>;
}

export interface ScenarioDef {
  readonly id: string;
  readonly name: string;
  readonly what: string;
  /** Called `faultAt` into the flood; resolves once the fault is over (and the faulty part is back, if it comes back). */
  inject(env: ChaosEnv, mark: LedgerMark): Promise<FaultReport>;
  /** Why the scenario cannot run in this environment, if it cannot. */
  skip?(env: ChaosEnv): string | null;
}

/** Trades stored after the raw writers reported caught up (settle.ts): stored, so not lost, but late. */
export interface Lateness {
  readonly late: number;
  /** From the first comparison to the last late trade's arrival (null: none late). */
  readonly lateSeconds: number | null;
}

export interface ScenarioRow extends TradeCount, Lateness {
  readonly id: string;
  readonly name: string;
  readonly recoverSeconds: number | null;
  readonly api5xxDuring: number;
  readonly api5xxAfter: number;
  readonly apiNoAnswerDuring: number;
  readonly checks: Readonly<Record<string, number | boolean | string>>;
  /** Processes that exited by themselves during the scenario (a crash is a bug: the verdict fails). */
  readonly crashed: readonly string[];
  readonly seconds: number;
  readonly skipped?: string;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs: number, everyMs = 250): Promise<number> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check().catch(() => false)) return Date.now();
    await sleep(everyMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/** Sum of a metric over every label set, from a process's /metrics (null when it does not answer). */
export async function metricSum(env: ChaosEnv, proc: ProcName, name: string): Promise<number | null> {
  try {
    const res = await fetch(env.cluster.metricsUrl(proc), { signal: AbortSignal.timeout(2000) });
    return sumOf(parseExposition(await res.text()), name);
  } catch {
    return null;
  }
}

/** Delivered option trades since the mark (the sandbox's ledger), summed over venues. */
export async function deliveredSince(env: ChaosEnv, mark: LedgerMark): Promise<number> {
  const now = (await env.sandbox.ask({ cmd: 'mark' }))['mark'] as LedgerMark;
  return Object.keys(now.delivered).reduce((n, v) => n + (now.delivered[v] ?? 0) - (mark.delivered[v] ?? 0), 0);
}

const DRAINED_PENDING = 100;

export async function runScenario(def: ScenarioDef, env: ChaosEnv): Promise<ScenarioRow> {
  const t0 = Date.now();
  const skip = def.skip?.(env) ?? null;
  const { cluster, sandbox, poller } = env;
  await cluster.sup.heal();
  const crashesBefore = cluster.sup.crashes().length;
  await waitUntil('both processors in the raw-writer group', async () => (await cluster.kafka.members()) === 2, 90_000, 500);
  await waitUntil(
    'the option trades drained before the scenario',
    async () => (await cluster.kafka.pending()) <= DRAINED_PENDING,
    120_000,
    500,
  );
  const mark = (await sandbox.ask({ cmd: 'mark' }))['mark'] as LedgerMark;
  await sandbox.ask({ cmd: 'flood', perVenue: env.perVenue, everyMs: env.everyMs });
  await sleep(env.floodMs * env.faultAt);
  const fault = skip === null ? await def.inject(env, mark) : { start: Date.now(), end: Date.now(), backAt: Date.now(), checks: {} };
  // Data caught up: the faulty part is back, ingest's publish spool is empty, its publisher holds at most a batch in
  // memory (none waiting in a retry back-off) and the raw writers are at most a batch behind.
  if (fault.repaired) await waitUntil(`${def.id}: the repair`, fault.repaired, 120_000, 500);
  const dataAt = await waitUntil(
    'the raw writers caught up',
    async () =>
      (await metricSum(env, PROCS.ingest, METRIC.ingestSpoolBytes)) === 0 &&
      ((await metricSum(env, PROCS.ingest, METRIC.ingestPublishBacklog)) ?? Infinity) <= DRAINED_PENDING &&
      (await cluster.kafka.pending()) <= DRAINED_PENDING,
    180_000,
  ).catch(() => null);
  const floodLeft = t0 + env.floodMs - Date.now();
  if (floodLeft > 0) await sleep(floodLeft);
  await sandbox.ask({ cmd: 'calm' });
  // The scenario's trades: printed from its start to the end of the flood (the model's later trickle is not awaited).
  const until = (await sandbox.ask({ cmd: 'mark' }))['mark'] as LedgerMark;
  const count = await settle(env, mark, until, t0 - 60_000);
  const after = Date.now();
  await sleep(3000); // the "after" window of the API poller
  const apiAt = poller.healthySince(fault.end);
  const recoverAt = dataAt === null || apiAt === null ? null : Math.max(dataAt, apiAt, fault.backAt);
  return {
    id: def.id,
    name: def.name,
    ...count,
    recoverSeconds: recoverAt === null ? null : (recoverAt - fault.end) / 1000,
    api5xxDuring: poller.count5xx(fault.start, after),
    api5xxAfter: poller.count5xx(after, Date.now()),
    apiNoAnswerDuring: poller.countNoAnswer(fault.start, after),
    checks: fault.checks,
    crashed: cluster.sup
      .crashes()
      .slice(crashesBefore)
      .map((c) => c.name),
    seconds: (Date.now() - t0) / 1000,
    ...(skip !== null ? { skipped: skip } : {}),
  };
}

/**
 * After the flood: the option trades committed (but the model's own trickle), then the comparison repeated every
 * 2 s until it is final (settle.ts: nothing missing, the missing count unchanged for 30 s, or 240 s).
 */
async function settle(env: ChaosEnv, mark: LedgerMark, until: LedgerMark, sinceMs: number): Promise<TradeCount & Lateness> {
  await waitUntil('the option trades committed', async () => (await env.cluster.kafka.pending()) <= DRAINED_PENDING, 180_000, 500);
  const samples: LostSample[] = [];
  for (;;) {
    const slice = (await env.sandbox.ask({ cmd: 'ledger', mark, until }))['slice'] as LedgerSlice;
    const count = await compareSlice(env.cluster.store, slice, sinceMs);
    samples.push({ atMs: Date.now(), lost: count.lost });
    const verdict = settled(samples);
    if (verdict.final) return { ...count, late: verdict.late, lateSeconds: verdict.lateSeconds };
    await sleep(2000);
  }
}
