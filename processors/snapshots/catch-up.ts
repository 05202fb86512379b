import type { Store } from '#clickhouse/store.ts';
import type { Logger } from '#platform/log.ts';
import type { MarketSymbol } from '#schemas/events.ts';
import { ticksBetween } from './clock.ts';
import type { SnapshotConfig } from './config.ts';
import { snapshotMetrics } from './metrics.ts';
import { lastCompletedTick } from './processor-reads.ts';

export interface PlannedTick {
  readonly symbol: MarketSymbol;
  readonly tick: number;
}

/**
 * The ticks missed while down, oldest first: every aligned tick after each symbol's last completed tick up to
 * `boundary`, if within the catch-up window before `startedAt`; older ones are counted and logged as skipped.
 */
export async function planCatchUp(
  store: Store,
  cfg: SnapshotConfig,
  startedAt: number,
  boundary: number,
  log: Logger,
): Promise<PlannedTick[]> {
  const plan: PlannedTick[] = [];
  const oldest = startedAt - cfg.catchUpWindowMs;
  for (const symbol of cfg.symbols) {
    const last = await lastCompletedTick(store, symbol);
    if (last === null) continue;
    const missed = ticksBetween(last, boundary + 1, cfg.snapshotIntervalMs);
    const stale = missed.filter((t) => t < oldest);
    if (stale.length > 0) {
      snapshotMetrics.skipped.inc({ symbol, reason: 'out_of_window' }, stale.length);
      log.warn(
        { symbol, skipped: stale.length, from: new Date(stale[0] ?? 0).toISOString() },
        'missed ticks beyond the catch-up window skipped',
      );
    }
    for (const tick of missed) if (tick >= oldest) plan.push({ symbol, tick });
  }
  return plan.sort((a, b) => a.tick - b.tick);
}
