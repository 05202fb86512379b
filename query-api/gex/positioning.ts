/** meta.extra.positioning: the model asked for, the model that ran and why a flow request fell back to std. */
import { FLOW_SYMBOLS } from '#processors/analytics/dealer.ts';
import type { DealerModel } from '#processors/analytics/types.ts';
import type { MarketSymbol } from '#schemas/events.ts';

export type FallbackReason = 'flow_not_available_for_symbol' | 'no_measured_inventory';

export interface PositioningMeta {
  readonly requested: DealerModel;
  readonly served: DealerModel;
  readonly fallback_reason?: FallbackReason;
}

export function fallbackReason(requested: DealerModel, served: DealerModel, symbol: MarketSymbol): FallbackReason | undefined {
  if (requested === served) return undefined;
  return FLOW_SYMBOLS.includes(symbol) ? 'no_measured_inventory' : 'flow_not_available_for_symbol';
}

export function positioningMeta(requested: DealerModel, served: DealerModel, symbol: MarketSymbol): PositioningMeta {
  const reason = fallbackReason(requested, served, symbol);
  return reason === undefined ? { requested, served } : { requested, served, fallback_reason: reason };
}
