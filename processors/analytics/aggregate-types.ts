/** The shape of a venue re-aggregation (aggregate.ts builds it; levels.ts reads it). */
import type { MarketSymbol, Venue } from '#schemas/events.ts';
import type { NearExpiryBlock, ScopeBlock } from './snapshot-row.ts';

/** Snapshot-wide values (identical in every venue row; passed separately so an empty selection still works). */
export interface SnapshotMeta {
  readonly symbol: MarketSymbol;
  /** ms UTC */
  readonly computed_at: number;
  readonly spot: number;
  readonly perp_price: number | null;
}

export interface CombinedExpiry {
  readonly expiry: number;
  /** OI-weighted mean of the venues' ATM IVs (plain mean when the OI weights sum to 0). */
  readonly atm_iv: number | null;
  readonly strikes: readonly number[];
  readonly call_oi: readonly number[];
  readonly put_oi: readonly number[];
}

export interface AggregateDiagnostics {
  readonly instruments_used: number;
  readonly skipped_no_iv: number;
  readonly dropped_expired: number;
  readonly t_floored: number;
}

export interface AggregateSnapshot extends ScopeBlock {
  readonly meta: SnapshotMeta;
  /** Venues whose rows were summed, canonical order. */
  readonly venues: readonly Venue[];
  readonly has_inventory: boolean;
  /** 0DTE scope: the earliest near expiry over the selected venues; null when none within 24 h. */
  readonly odte: NearExpiryBlock | null;
  readonly expiries: readonly CombinedExpiry[];
  readonly diagnostics: AggregateDiagnostics;
}
