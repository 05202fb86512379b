import type { RouteFamily } from '../types.ts';
import { flowByStrikeRoute } from './flow-by-strike.ts';
import { strikeHeatRoute } from './strike-heat.ts';
import { recentRoute, tapeRoute } from './tape.ts';

/** The tape family: /v2/tape, /v2/tape/recent, /v2/tape/strike-heat, /v2/tape/flow-by-strike
 * (from option_trades FINAL). */
export const tapeRoutes: RouteFamily = async (app, ctx) => {
  for (const route of [tapeRoute, recentRoute, strikeHeatRoute, flowByStrikeRoute]) await route(app, ctx);
};
