import type { RouteFamily } from '../types.ts';
import { pcrRoute } from './pcr.ts';
import { premiumTideRoute } from './premium-tide.ts';
import { greeksRoutes } from './greeks.ts';
import { rangeRoute } from './range.ts';
import { chainRoutes } from './chain.ts';
import { ivRoutes } from './iv.ts';

/** The options analytics family: /v2/options/pcr, /v2/options/premium-tide, /v2/options/greeks/{greek},
 * /v2/options/greeks/surfaces/{greek}, /v2/options/greeks/3d/surface, /v2/options/range, /v2/options/chain,
 * /v2/options/venue-book, /v2/options/oi/by-expiry, /v2/options/iv/smile, /v2/options/iv/term-structure. */
export const optionsRoutes: RouteFamily = async (app, ctx) => {
  await pcrRoute(app, ctx);
  await premiumTideRoute(app, ctx);
  await greeksRoutes(app, ctx);
  await rangeRoute(app, ctx);
  await chainRoutes(app, ctx);
  await ivRoutes(app, ctx);
};
