import type { RouteFamily } from '../types.ts';
import { cotRoutes } from './cot.ts';
import { etfFlowsRoute } from './etf.ts';
import { holdersRoute } from './filings.ts';

/** Reference data: /v2/etf/flows, /v2/cot/summary, /v2/cot/markets, /v2/cot/instrument, /v2/filings/holders. */
export const referenceRoutes: RouteFamily = async (app, ctx) => {
  for (const route of [etfFlowsRoute, cotRoutes, holdersRoute]) await route(app, ctx);
};
