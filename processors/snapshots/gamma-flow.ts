/**
 * Gamma flow (pure): for each snapshot and model, the spot change in percent vs the previous stored snapshot
 * of the series, times the snapshot's net GEX (USD per 1 %), and the running sum of those increments.
 * The first point of a series has no previous snapshot: pct_change = 0, increment = 0.
 */
import type { MarketSymbol } from '#schemas/events.ts';
import type { DealerModel } from '../analytics/types.ts';

export const GAMMA_FLOW_TABLE = 'gamma_flow';

export interface GammaFlowPoint {
  readonly symbol: MarketSymbol;
  readonly computed_at: number;
  /** Requested model (series key). */
  readonly model: DealerModel;
  /** Model that ran for this snapshot. */
  readonly positioning: DealerModel;
  readonly spot: number;
  readonly prev_computed_at: number | null;
  readonly prev_spot: number | null;
  readonly pct_change: number;
  readonly net_gex: number;
  readonly increment: number;
  readonly cumulative: number;
}

export function nextGammaFlowPoint(
  prev: GammaFlowPoint | null,
  cur: { symbol: MarketSymbol; computed_at: number; model: DealerModel; positioning: DealerModel; spot: number; net_gex: number },
): GammaFlowPoint {
  const pct = prev !== null && prev.spot > 0 ? (cur.spot / prev.spot - 1) * 100 : 0;
  const increment = pct * cur.net_gex;
  return {
    ...cur,
    prev_computed_at: prev?.computed_at ?? null,
    prev_spot: prev?.spot ?? null,
    pct_change: pct,
    increment,
    cumulative: (prev?.cumulative ?? 0) + increment,
  };
}
