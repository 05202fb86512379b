import type { RouteFamily } from '../../types.ts';
import { strikeHeatRoute } from './strike-heat.ts';
import { recentRoute, tapeRoute } from './tape.ts';

/** The tape family: /v2/tape, /v2/tape/recent, /v2/tape/strike-heat (from option_trades FINAL). */
export const tapeRoutes: RouteFamily = async (app, ctx) => {
  for (const route of [tapeRoute, recentRoute, strikeHeatRoute]) await route(app, ctx);
};
