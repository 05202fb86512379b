/**
 * Step 3 of a cycle: store and publish. Order: gex_snapshots, gex_levels, gamma_flow (the completion marker,
 * see snapshot-reads.ts lastCompletedTick), then the announcement on the bus (best effort: announceSnapshot). Every
 * insert has a dedup token naming (table, symbol, computed_at): a cycle re-run after a crash stores nothing twice,
 * even if it computed different numbers (the first stored version wins).
 */
import type { Store } from '#clickhouse/store.ts';
import type { Bus } from '#bus/types.ts';
import { TOPICS } from '#schemas/events.ts';
import type { MarketSymbol } from '#schemas/events.ts';
import { encodeSnapshot } from '#schemas/event-codec.ts';
import { withDeadline } from '#platform/deadline.ts';
import { childLogger } from '#platform/log.ts';
import { GAMMA_FLOW_TABLE } from './gamma-flow.ts';
import type { GammaFlowPoint } from './gamma-flow.ts';
import { LEVELS_TABLE, toLevelsRecord } from './levels-record.ts';
import { MODELS } from './levels-step.ts';
import type { SnapshotLevels } from './levels-step.ts';
import { SNAPSHOT_TABLE, toSnapshotRecord } from './snapshot-record.ts';
import type { StoredSnapshotRow } from './snapshot-record.ts';
import { snapshotMetrics } from './metrics.ts';

export const SNAPSHOT_KIND = 'gex_levels';
const log = childLogger('snapshots');

export function dedupToken(table: string, symbol: MarketSymbol, computedAt: number): string {
  return `${table}:${symbol}:${computedAt}`;
}

export async function storeSnapshotRows(
  store: Store,
  symbol: MarketSymbol,
  computedAt: number,
  rows: readonly StoredSnapshotRow[],
): Promise<void> {
  await store.insert(SNAPSHOT_TABLE, rows.map(toSnapshotRecord), { dedupToken: dedupToken(SNAPSHOT_TABLE, symbol, computedAt) });
}

export async function storeLevelsAndFlow(store: Store, s: SnapshotLevels, flow: readonly GammaFlowPoint[]): Promise<void> {
  const { symbol, computed_at: t, spot, perp_price: perp } = s.meta;
  await store.insert(
    LEVELS_TABLE,
    MODELS.map((m) => toLevelsRecord(symbol, t, m, s.levels[m], spot, perp, s.coverage)),
    { dedupToken: dedupToken(LEVELS_TABLE, symbol, t) },
  );
  await store.insert(GAMMA_FLOW_TABLE, flow, { dedupToken: dedupToken(GAMMA_FLOW_TABLE, symbol, t) });
}

/** The WebSocket feed document: levels of both models (the feed serves `flow`). */
export function snapshotPayload(s: SnapshotLevels): string {
  return JSON.stringify({
    symbol: s.meta.symbol,
    computed_at: new Date(s.meta.computed_at).toISOString(),
    spot_price: s.meta.spot,
    perps_price: s.meta.perp_price,
    coverage: s.coverage,
    levels: s.levels,
  });
}

/** How long a cycle waits for its snapshot's announcement; a send still running then goes on in the background. */
export const ANNOUNCE_WAIT_MS = 2_000;

/**
 * Announces a stored snapshot on analytics.snapshots.v1. The announcement only notifies (the API's snapshot cache
 * also polls the store; the WS feed pushes the next tick's): when the bus refuses it or has not taken it within
 * ANNOUNCE_WAIT_MS (a broker outage: the producer retries for ~16 s) it is logged and counted
 * (gex_snapshot_announce_failures_total) and the cycle ends as stored. Failing the cycle instead made the step runner
 * redo it 3 times, each waiting out the producer's retries: ~50 s per symbol, so the tick loop fell minutes behind
 * during an outage and was still catching up long after the broker was back.
 */
export async function announceSnapshot(bus: Bus, s: SnapshotLevels): Promise<boolean> {
  try {
    await withDeadline(publishSnapshot(bus, s), ANNOUNCE_WAIT_MS);
    return true;
  } catch (err) {
    snapshotMetrics.announceFailures.inc();
    log.warn({ err, symbol: s.meta.symbol, tick: new Date(s.meta.computed_at).toISOString() }, 'snapshot stored; its announcement failed');
    return false;
  }
}

export async function publishSnapshot(bus: Bus, s: SnapshotLevels): Promise<void> {
  const { symbol, computed_at: t } = s.meta;
  await bus.publish(TOPICS.snapshot, [
    encodeSnapshot({ symbol, kind: SNAPSHOT_KIND, computedAt: t, payload: snapshotPayload(s), id: `${symbol}:${SNAPSHOT_KIND}:${t}` }),
  ]);
}
