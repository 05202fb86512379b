/** gex_levels row (aggregate levels of all venues, one per requested model) from the engine's LevelsData. */
import type { MarketSymbol } from '#schemas/events.ts';
import type { LevelsData } from '../analytics/levels.ts';
import type { DealerModel } from '../analytics/types.ts';

export const LEVELS_TABLE = 'gex_levels';

export function toLevelsRecord(
  symbol: MarketSymbol,
  computedAt: number,
  model: DealerModel,
  levels: LevelsData,
  spot: number,
  perpPrice: number | null,
  coverage: number | null,
): Record<string, unknown> {
  const a = levels.all_expiry;
  return {
    symbol,
    computed_at: computedAt,
    model,
    positioning: levels.positioning,
    spot,
    perp_price: perpPrice,
    hvl: a.hvl,
    call_resistance: a.call_resistance,
    call_wall_2: a.call_wall_2,
    call_wall_3: a.call_wall_3,
    put_support: a.put_support,
    put_wall_2: a.put_wall_2,
    put_wall_3: a.put_wall_3,
    net_gex: a.net_gex,
    odte_hvl: levels.odte.hvl,
    odte_call_resistance: levels.odte.call_resistance,
    odte_put_support: levels.odte.put_support,
    max_pain: levels.max_pain?.strike ?? null,
    coverage,
    venues: levels.diagnostics?.venues ?? [],
    payload: JSON.stringify(levels),
  };
}
