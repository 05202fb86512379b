/** Settings of the snapshot processor (defaults tuned for 30 s snapshots of live venue feeds). */
import { SYMBOLS } from '#schemas/events.ts';
import type { MarketSymbol } from '#schemas/events.ts';

export interface SnapshotConfig {
  readonly symbols: readonly MarketSymbol[];
  /** Snapshot cadence; ticks are the multiples of this interval since the epoch (wall-clock aligned). */
  readonly snapshotIntervalMs: number;
  /** A ticker older than this (venue ts) at the tick is left out of the chain. */
  readonly tickerFreshnessMs: number;
  /** Index prices / perp marks older than this are not used for spot / perp price. */
  readonly priceFreshnessMs: number;
  /**
   * Ticks missed while the processor was down (or a cycle overran) are computed from the stored raw tables as
   * of the tick when they are at most this old; older ticks are skipped, counted and logged. At most
   * MAX_CATCH_UP_MS: readers treat ticks older than a day as final (snapshot-times.ts).
   */
  readonly catchUpWindowMs: number;
  /**
   * Consumer group whose commits make events durable (the raw writer). A consumed batch is committed only
   * after this group committed past it, so a restart rebuilds from ClickHouse everything before the
   * committed offsets. null: no gating (state then relies on the rebuild window only).
   */
  readonly durableGroupId: string | null;
  /** Consumer group of the processor itself. */
  readonly groupId: string;
  /** How long a catch-up waits for the durable group to drain before computing from the store anyway. */
  readonly drainTimeoutMs: number;
}

/** Cap of catchUpWindowMs, well below snapshot-times.ts SETTLE_MS (24 h). */
export const MAX_CATCH_UP_MS = 6 * 3600_000;

export const DEFAULT_SNAPSHOT_CONFIG: SnapshotConfig = {
  symbols: SYMBOLS,
  snapshotIntervalMs: 30_000,
  tickerFreshnessMs: 5 * 60_000,
  priceFreshnessMs: 60_000,
  catchUpWindowMs: 10 * 60_000,
  durableGroupId: 'raw-writer',
  groupId: 'gex-snapshots',
  drainTimeoutMs: 10_000,
};

export function snapshotConfig(overrides: Partial<SnapshotConfig> = {}): SnapshotConfig {
  const c = { ...DEFAULT_SNAPSHOT_CONFIG, ...overrides };
  for (const k of ['snapshotIntervalMs', 'tickerFreshnessMs', 'priceFreshnessMs', 'drainTimeoutMs'] as const) {
    if (!Number.isInteger(c[k]) || c[k] <= 0) throw new Error(`snapshot config: ${k} must be a positive integer, got ${c[k]}`);
  }
  if (!(c.catchUpWindowMs >= 0 && c.catchUpWindowMs <= MAX_CATCH_UP_MS)) {
    throw new Error(`snapshot config: catchUpWindowMs must be within [0, ${MAX_CATCH_UP_MS}], got ${c.catchUpWindowMs}`);
  }
  return c;
}
