import { levelsAsOf, levelsOfSnapshot } from './as-of.ts';
import { notFound } from '../envelope/errors.ts';
import { responses } from '../envelope/envelope-schemas.ts';
import type { ApiInstance } from '../types.ts';
import { candlesBefore } from './candles.ts';
import { TAG, type GexContext } from './context.ts';
import { rendered, type Rendered } from './memo.ts';
import { includeSet, venueFilter } from '../params/query-params.ts';
import { LEVELS_INCLUDES } from './includes.ts';
import { asOfMeta, resolveInstant } from './point-in-time.ts';
import { positioningMeta } from './positioning.ts';
import { engineIncludes, levelsPayload, type LevelsPayload } from './render.ts';
import { cachedMeta, gexMeta, sendCached, sendRendered, type CachedMeta } from './respond.ts';
import { levelsData, levelsQuery } from './schemas.ts';

interface LevelsAnswer {
  readonly rendered: Rendered<LevelsPayload>;
  readonly meta: CachedMeta;
}

/**
 * GET /v2/gex/levels: current levels from the in-memory snapshot cache (each (model, venue filter, include)
 * answer rendered once per snapshot); `as_of` from ClickHouse (newest snapshot at or before, never after).
 */
export async function levelsRoute(app: ApiInstance, ctx: GexContext): Promise<void> {
  app.get('/v2/gex/levels', {
    schema: {
      tags: [TAG],
      summary: 'GEX levels',
      description:
        'Zero-gamma level (hvl), call/put walls and 0DTE levels of the newest snapshot (about every 30 s), under the flow (default) or std dealer model; optional blocks via `include`; `exchanges` re-aggregates from the per-venue breakdown; `as_of` serves the newest snapshot at or before an instant.',
      querystring: levelsQuery,
      response: responses(levelsData, { auth: true }),
    },
    handler: async (request, reply) => {
      const q = request.query;
      const model = q.positioning ?? 'flow';
      const include = includeSet(q.include, LEVELS_INCLUDES);
      const withCandles = include.includes('candles');
      const filter = venueFilter(q.exchanges);
      const now = ctx.clock();

      if (q.as_of === undefined) {
        const snap = ctx.cache.get(q.symbol);
        if (snap === null) throw notFound(`no GEX snapshot for ${q.symbol} yet`);
        const answer = await ctx.memo.get(snap, `levels|${model}|${filter.key}|${include.join(',')}`, async (): Promise<LevelsAnswer> => {
          const { levels } = levelsOfSnapshot(snap, model, filter.venues, engineIncludes(include));
          const candles = withCandles ? await candlesBefore(ctx.store, q.symbol, snap.meta.computed_at) : undefined;
          const { payload, source } = levelsPayload(levels, candles);
          const meta = cachedMeta({
            symbol: q.symbol,
            spotPrice: snap.meta.spot,
            computedAt: snap.meta.computed_at,
            source,
            ...(filter.applied !== undefined ? { exchangesFiltered: filter.applied } : {}),
            extra: { positioning: positioningMeta(model, levels.positioning, q.symbol) },
          });
          return { rendered: rendered(payload), meta };
        });
        return sendCached(ctx, request, reply, answer.rendered, answer.meta);
      }

      const at = resolveInstant(ctx, request, q.as_of);
      const r = await levelsAsOf(ctx.store, {
        symbol: q.symbol,
        asOfMs: at.servedMs,
        model,
        venues: filter.venues,
        include: engineIncludes(include),
      });
      if (r === null) throw notFound(`no GEX snapshot for ${q.symbol} at or before ${new Date(at.servedMs).toISOString()}`);
      const candles = withCandles ? await candlesBefore(ctx.store, q.symbol, r.snapshotAt) : undefined;
      const { payload, source } = levelsPayload(r.levels, candles);
      const meta = gexMeta(now, {
        symbol: q.symbol,
        spotPrice: r.spot,
        computedAt: r.snapshotAt,
        source,
        ...(filter.applied !== undefined ? { exchangesFiltered: filter.applied } : {}),
        extra: {
          positioning: positioningMeta(model, r.levels.positioning, q.symbol),
          as_of: asOfMeta(at.requested, r.snapshotAt, at.servedMs),
        },
        history: at.history,
      });
      return sendRendered(ctx, request, reply, rendered(payload), meta);
    },
  });
}
