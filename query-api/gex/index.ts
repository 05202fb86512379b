import { validatorCompiler } from 'fastify-type-provider-zod';
import { memoQueryValidator } from '../cache/memo-validator.ts';
import type { RouteFamily } from '../types.ts';
import type { GexContext } from './context.ts';
import { gammaFlowRoute } from './gamma-flow.ts';
import { heatmapRoute } from './heatmap.ts';
import { levelsRoute } from './levels.ts';
import { maxPainRoute } from './max-pain.ts';
import { SnapshotMemo } from './memo.ts';
import { multiLevelsRoute } from './multi-levels.ts';
import { stressHistoryRoute } from './stress-history.ts';
import { levelStudyRoute } from './level-study.ts';

/**
 * The GEX family: /v2/gex/levels, /v2/gex/gamma-flow, /v2/multi/gex/levels, /v2/gex/max-pain,
 * /v2/gex/strike-expiry-heatmap, /v2/gex/stress-history, /v2/gex/level-study. Registered by buildApp when a
 * SnapshotCache is given (AppDeps.snapshots).
 */
export const gexRoutes: RouteFamily = async (app, ctx) => {
  if (ctx.snapshots === null) throw new Error('gexRoutes needs AppDeps.snapshots (a SnapshotCache)');
  // Every GEX query schema is pure: a query string seen before is answered from memory (this scope only).
  app.setValidatorCompiler(memoQueryValidator(validatorCompiler));
  const gctx: GexContext = { ...ctx, historyPolicy: ctx.historyPolicy, cache: ctx.snapshots, memo: new SnapshotMemo() };
  for (const route of [levelsRoute, gammaFlowRoute, multiLevelsRoute, maxPainRoute, heatmapRoute, stressHistoryRoute, levelStudyRoute])
    await route(app, gctx);
};
