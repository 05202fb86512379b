import type { RouteFamily } from '../../types.ts';
import { pcrRoute } from './pcr.ts';
import { premiumTideRoute } from './premium-tide.ts';

/** The options analytics family: /v2/options/pcr, /v2/options/premium-tide. */
export const optionsRoutes: RouteFamily = async (app, ctx) => {
  await pcrRoute(app, ctx);
  await premiumTideRoute(app, ctx);
};
