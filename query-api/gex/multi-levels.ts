import { levelsOfSnapshot } from './as-of.ts';
import type { DealerModel } from '#processors/analytics/types.ts';
import type { MarketSymbol } from '#schemas/events.ts';
import { responses } from '../envelope/envelope-schemas.ts';
import type { ApiInstance } from '../types.ts';
import { TAG, type GexContext } from './context.ts';
import { includeSet, splitSymbols, venueFilter } from '../params/query-params.ts';
import { MULTI_INCLUDES } from './includes.ts';
import { fallbackReason, type FallbackReason } from './positioning.ts';
import { levelsPayload, type LevelsPayload } from './render.ts';
import { multiLevelsData, multiLevelsQuery } from './schemas.ts';

interface Computed {
  readonly levels: LevelsPayload;
  readonly source: readonly string[];
}

/**
 * GET /v2/multi/gex/levels: the current levels of up to 8 symbols in one request (one request against the
 * burst limit and one quota unit). Per symbol the same computation as /v2/gex/levels (memoized per snapshot).
 */
export async function multiLevelsRoute(app: ApiInstance, ctx: GexContext): Promise<void> {
  app.get('/v2/multi/gex/levels', {
    schema: {
      tags: [TAG],
      summary: 'GEX levels of several symbols',
      description:
        'Current levels of up to 8 symbols with a served / missing (no snapshot) / invalid (not a symbol) breakdown; flow falls back to std per symbol (meta.extra.positioning). Counts as one request against the rate limit.',
      querystring: multiLevelsQuery,
      response: responses(multiLevelsData, { auth: true }),
    },
    handler: async (request) => {
      const q = request.query;
      const model: DealerModel = q.positioning ?? 'flow';
      const include = includeSet(q.include, MULTI_INCLUDES);
      const filter = venueFilter(q.exchanges);
      const { valid, invalid } = splitSymbols(q.symbols);
      const now = ctx.clock();
      const entries = [];
      const served: MarketSymbol[] = [];
      const missing: MarketSymbol[] = [];
      const servedModels: Partial<Record<MarketSymbol, DealerModel>> = {};
      const fallback: Partial<Record<MarketSymbol, FallbackReason>> = {};
      for (const symbol of valid) {
        const snap = ctx.cache.get(symbol);
        if (snap === null) {
          missing.push(symbol);
          continue;
        }
        const c = await ctx.memo.get(snap, `multi|${model}|${filter.key}|${include.join(',')}`, (): Computed => {
          const { payload, source } = levelsPayload(levelsOfSnapshot(snap, model, filter.venues, include).levels);
          return { levels: payload, source };
        });
        served.push(symbol);
        servedModels[symbol] = c.levels.positioning;
        const reason = fallbackReason(model, c.levels.positioning, symbol);
        if (reason !== undefined) fallback[symbol] = reason;
        entries.push({
          symbol,
          computed_at: new Date(snap.meta.computed_at).toISOString(),
          freshness_seconds: Math.max(0, Math.round((now - snap.meta.computed_at) / 100) / 10),
          spot_price: snap.meta.spot,
          source: [...c.source],
          levels: c.levels,
        });
      }
      return ctx.respond.ok(
        request,
        { entries, served, missing, invalid },
        {
          ...(filter.applied !== undefined ? { exchanges_filtered: [...filter.applied] } : {}),
          extra: {
            positioning: {
              requested: model,
              served: servedModels,
              ...(Object.keys(fallback).length > 0 ? { fallback_reason: fallback } : {}),
            },
          },
        },
      );
    },
  });
}
