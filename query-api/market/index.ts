import { MarketReadCache } from './read-cache.ts';
import type { RouteFamily } from '../types.ts';
import { bundleRoute } from './bundle.ts';
import { candlesRoute } from './candles.ts';
import { openInterestRoute } from './open-interest.ts';

/** The market data family: /v2/market/candles, /v2/market/open-interest, /v2/market/bundle. */
export const marketRoutes: RouteFamily = async (app, ctx) => {
  const cache = new MarketReadCache(ctx.config.marketCacheMs, ctx.clock);
  for (const route of [candlesRoute, openInterestRoute, bundleRoute]) await route(app, ctx, cache);
};
