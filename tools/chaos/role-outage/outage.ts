/**
 * One broker outage of one deployment: wait for the planned instant (for the group-join aim: start the joiner there
 * and wait until the raw writer's group rebalances), stop the broker (SIGTERM, clean shutdown), keep it down, start
 * it again, then measure each role's recovery (recovery.ts) and check that no role process was replaced.
 */
import type { Supervisor } from '../supervisor.ts';
import type { ApiPoller } from '../api-poller.ts';
import type { Deployment, RoleName } from './deployments.ts';
import type { FeedWatch } from './feed-watch.ts';
import type { PlannedOutage } from './plan.ts';
import { latestSnapshots, metricTotal } from './probes.ts';
import { measureRecovery, type Recovery } from './recovery.ts';

export interface OutageContext {
  readonly sup: Supervisor;
  metricsUrl(name: string): string;
  readonly feed: FeedWatch;
  readonly poller: ApiPoller;
  /** Symbols with snapshots in the deployment's store before the outages. */
  readonly symbols: readonly string[];
  readonly intervalMs: number;
  readonly log: (line: string) => void;
}

export interface RolePid {
  readonly before: number;
  readonly after: number;
  readonly alive: boolean;
}

export interface DeploymentOutage {
  readonly deployment: Deployment['name'];
  readonly planned: PlannedOutage;
  /** The aligned tick the instant was chosen against. */
  readonly tick: number;
  /** SIGTERM sent, broker process gone, broker port open again (ms). */
  readonly stopAt: number;
  readonly downAt: number;
  readonly upAt: number;
  /** Group-join aim: the raw writer group's state when the SIGTERM was sent ('not observed': no rebalance seen). */
  readonly groupState: string | null;
  /** Over the outage, of the snapshot-computing process: failed durability look-ups before a tick, unconfirmed drains. */
  readonly drainLookupErrors: number;
  readonly drainUnconfirmed: number;
  /**
   * Just before the SIGTERM: how far the newest stored snapshot (oldest over the symbols) was behind the clock, s. Over
   * 30-60 s means the snapshot loop could not keep its 30 s cadence on this machine before the outage began.
   */
  readonly snapshotsBehindS: number;
  readonly recovery: Recovery;
  readonly pids: Readonly<Partial<Record<RoleName, RolePid>>>;
  /** Group-join aim: the joiner still runs after the outage. */
  readonly joinerAlive: boolean | null;
  /** API probes (health and tape every 500 ms) answered 5xx or not at all between the SIGTERM and the recovery's end. */
  readonly apiFailures: number;
}

const REBALANCING = new Set(['PreparingRebalance', 'CompletingRebalance']);
/** Longest wait for the joiner to make the group rebalance (its start: tsx, store, topics, first subscription). */
const JOIN_WAIT_MS = 120_000;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const sleepUntil = (t: number): Promise<void> => sleep(Math.max(0, t - Date.now()));

/** Starts the joiner and resolves with the group's state once it rebalances ('not observed' after JOIN_WAIT_MS). */
async function joinerRebalancing(d: Deployment): Promise<string> {
  d.startJoiner().catch(() => undefined); // its survival is checked after the outage
  const until = Date.now() + JOIN_WAIT_MS;
  while (Date.now() < until) {
    const state = await d.kafka.groupState().catch(() => 'Unknown');
    if (REBALANCING.has(state)) return state;
    await sleep(100);
  }
  return 'not observed';
}

async function drainCounters(url: string): Promise<{ errors: number; unconfirmed: number }> {
  const errors = (await metricTotal(url, 'gex_snapshot_offset_lookup_errors_total', { where: 'drain' })) ?? Number.NaN;
  const unconfirmed = (await metricTotal(url, 'gex_snapshot_drain_unconfirmed_total')) ?? Number.NaN;
  return { errors, unconfirmed };
}

export async function runDeploymentOutage(
  d: Deployment,
  x: OutageContext,
  planned: PlannedOutage,
  tick: number,
): Promise<DeploymentOutage> {
  const pidsBefore = new Map(d.roles.map((r) => [r, x.sup.pid(r)]));
  const computerMetrics = x.metricsUrl(d.computer);
  const before = await drainCounters(computerMetrics);
  if (planned.aim !== 'group join') await sleepUntil(tick + planned.offsetMs);
  const groupState = planned.aim === 'group join' ? await joinerRebalancing(d) : null;
  const latest = await latestSnapshots(d.store).catch(() => new Map<string, number>());
  const newest = Math.min(...x.symbols.map((s) => latest.get(s) ?? 0));
  const stopAt = Date.now();
  // Group join: the instant is the rebalance's, so it is shown against the tick before it.
  const refTick = planned.aim === 'group join' ? Math.floor(stopAt / x.intervalMs) * x.intervalMs : tick;
  x.log(
    `${d.name}: broker SIGTERM at ${new Date(stopAt).toISOString()} (${((stopAt - refTick) / 1000).toFixed(1)} s after the tick ${new Date(refTick).toISOString()}` +
      `${groupState !== null ? `; joiner started, group ${groupState} at the SIGTERM` : ''}), down ${planned.downMs / 1000} s;` +
      ` newest snapshot ${((stopAt - newest) / 1000).toFixed(0)} s old`,
  );
  const { downAt, upAt } = await d.broker.bounce(planned.downMs);
  x.log(`${d.name}: broker gone after ${(downAt - stopAt) / 1000} s, back (port open) ${(upAt - stopAt) / 1000} s after the SIGTERM`);
  const recovery = await measureRecovery(
    {
      publisherMetrics: x.metricsUrl(d.publisher),
      store: d.store,
      symbols: x.symbols,
      apiUrl: d.apiUrl,
      apiKey: d.apiKey,
      feed: x.feed,
      intervalMs: x.intervalMs,
    },
    upAt,
  );
  const after = await drainCounters(computerMetrics);
  const pids: Partial<Record<RoleName, RolePid>> = {};
  for (const r of d.roles) pids[r] = { before: pidsBefore.get(r) ?? -1, after: x.sup.pid(r), alive: x.sup.alive(r) };
  const end = Date.now();
  return {
    deployment: d.name,
    planned,
    tick: refTick,
    stopAt,
    downAt,
    upAt,
    groupState,
    drainLookupErrors: after.errors - before.errors,
    drainUnconfirmed: after.unconfirmed - before.unconfirmed,
    snapshotsBehindS: (stopAt - newest) / 1000,
    recovery,
    pids,
    joinerAlive: planned.aim === 'group join' ? x.sup.alive(d.joiner) : null,
    apiFailures: x.poller.count5xx(stopAt, end) + x.poller.countNoAnswer(stopAt, end),
  };
}
