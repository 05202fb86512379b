import type { RouteFamily } from '../types.ts';
import { replayRoute } from './route.ts';

/** The replay family: /v2/replay (the stored history of feed channels as NDJSON). */
export const replayRoutes: RouteFamily = async (app, ctx) => {
  await replayRoute(app, ctx);
};
