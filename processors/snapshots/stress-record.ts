/**
 * gex_stress rows (migration 057): per venue of a stored snapshot, the shocked totals of both models and the
 * profile arrays (analytics/stress.ts). Written by the cycle after gex_snapshots, before the completion marker.
 */
import type { Store } from '#clickhouse/store.ts';
import type { MarketSymbol } from '#schemas/events.ts';
import { shockValues } from '../analytics/stress.ts';
import type { StoredSnapshotRow } from './snapshot-record.ts';

export const STRESS_TABLE = 'gex_stress';

export function toStressRecord(r: StoredSnapshotRow): Record<string, unknown> {
  return {
    symbol: r.symbol,
    computed_at: r.computed_at,
    venue: r.venue,
    spot: r.spot,
    has_inventory: r.has_inventory,
    shock_std: shockValues(r.profile_std),
    shock_flow: shockValues(r.profile_flow),
    profile_std: r.profile_std,
    profile_std_slope: r.profile_std_slope,
    profile_flow: r.profile_flow,
    profile_flow_slope: r.profile_flow_slope,
  };
}

/** Idempotent per (symbol, tick): the dedup token names the table, symbol and tick. */
export async function storeStressRows(
  store: Store,
  symbol: MarketSymbol,
  computedAt: number,
  rows: readonly StoredSnapshotRow[],
): Promise<void> {
  if (rows.length === 0) return;
  await store.insert(STRESS_TABLE, rows.map(toStressRecord), { dedupToken: `${STRESS_TABLE}:${symbol}:${computedAt}` });
}
