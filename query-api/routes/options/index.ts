import type { RouteFamily } from '../../types.ts';
import { premiumTideRoute } from './premium-tide.ts';

/** The options analytics family: /v2/options/premium-tide. */
export const optionsRoutes: RouteFamily = async (app, ctx) => {
  await premiumTideRoute(app, ctx);
};
