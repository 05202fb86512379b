import type { RouteFamily } from '../../types.ts';
import { recentRoute, tapeRoute } from './tape.ts';

/** The tape family: /v2/tape, /v2/tape/recent (option trades from option_trades FINAL). */
export const tapeRoutes: RouteFamily = async (app, ctx) => {
  for (const route of [tapeRoute, recentRoute]) await route(app, ctx);
};
