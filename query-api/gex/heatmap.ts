import { heatmapOfSnapshot } from './readers.ts';
import { responses } from '../envelope/envelope-schemas.ts';
import type { ApiInstance } from '../types.ts';
import { TAG, type GexContext } from './context.ts';
import { rendered } from './memo.ts';
import { venueFilter } from '../params/query-params.ts';
import { positioningMeta } from './positioning.ts';
import { gexMeta, sendRendered } from './respond.ts';
import { pointInTimeMeta, snapshotForRequest } from './point-in-time.ts';
import { heatmapData, heatmapQuery } from './schemas.ts';

/** GET /v2/gex/strike-expiry-heatmap: net GEX by strike × expiry of the latest snapshot (or as of an instant) as a compact matrix. */
export async function heatmapRoute(app: ApiInstance, ctx: GexContext): Promise<void> {
  app.get('/v2/gex/strike-expiry-heatmap', {
    schema: {
      tags: [TAG],
      summary: 'Net GEX by strike and expiry',
      description:
        'Net GEX (USD per 1% move) of the latest snapshot (or the newest at or before `as_of`, never after) by strike × expiry under the selected model: `values[i][j]` is expiry i at strike j, 0 where nothing is listed; `exchanges` re-aggregates the chosen venues.',
      querystring: heatmapQuery,
      response: responses(heatmapData, { auth: true }),
    },
    handler: async (request, reply) => {
      const q = request.query;
      const model = q.positioning ?? 'flow';
      const { snap, at } = await snapshotForRequest(ctx, request, q.symbol, q.as_of);
      const pit = pointInTimeMeta(at, snap.meta.computed_at);
      const filter = venueFilter(q.exchanges);
      const answer = await ctx.memo.get(snap, `heatmap|${model}|${filter.key}`, () => {
        const h = heatmapOfSnapshot(snap, model, filter.venues);
        const data = {
          symbol: q.symbol,
          positioning: h.positioning,
          strikes: [...h.strikes],
          expiries: h.expiries.map((e) => new Date(e).toISOString()),
          values: h.net_gex.map((line) => [...line]),
        };
        return { h, rendered: rendered(data) };
      });
      const meta = gexMeta(ctx.clock(), {
        symbol: q.symbol,
        spotPrice: answer.h.spot,
        computedAt: answer.h.snapshotAt,
        source: answer.h.venues,
        ...(filter.applied !== undefined ? { exchangesFiltered: filter.applied } : {}),
        extra: { positioning: positioningMeta(model, answer.h.positioning, q.symbol), ...pit.extra },
        ...(pit.history !== undefined ? { history: pit.history } : {}),
      });
      return sendRendered(ctx, request, reply, answer.rendered, meta);
    },
  });
}
