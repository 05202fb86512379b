/**
 * Step 3 of a cycle: store and publish. Order: gex_snapshots, gex_levels, gamma_flow (the completion marker,
 * see snapshot-reads.ts lastCompletedTick), then the bus. Every insert has a dedup token naming (table,
 * symbol, computed_at): a cycle re-run after a crash stores nothing twice, even if it computed different
 * numbers (the first stored version wins).
 */
import type { Store } from '#clickhouse/store.ts';
import type { Bus } from '#bus/types.ts';
import { TOPICS } from '#schemas/events.ts';
import type { MarketSymbol } from '#schemas/events.ts';
import { encodeSnapshot } from '#schemas/event-codec.ts';
import { GAMMA_FLOW_TABLE } from './gamma-flow.ts';
import type { GammaFlowPoint } from './gamma-flow.ts';
import { LEVELS_TABLE, toLevelsRecord } from './levels-record.ts';
import { MODELS } from './levels-step.ts';
import type { SnapshotLevels } from './levels-step.ts';
import { SNAPSHOT_TABLE, toSnapshotRecord } from './snapshot-record.ts';
import type { StoredSnapshotRow } from './snapshot-record.ts';

export const SNAPSHOT_KIND = 'gex_levels';

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

export async function publishSnapshot(bus: Bus, s: SnapshotLevels): Promise<void> {
  const { symbol, computed_at: t } = s.meta;
  await bus.publish(TOPICS.snapshot, [
    encodeSnapshot({ symbol, kind: SNAPSHOT_KIND, computedAt: t, payload: snapshotPayload(s), id: `${symbol}:${SNAPSHOT_KIND}:${t}` }),
  ]);
}
