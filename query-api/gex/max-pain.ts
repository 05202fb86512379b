import { maxPainOfSnapshot } from './readers.ts';
import { notFound } from '../envelope/errors.ts';
import { responses } from '../envelope/envelope-schemas.ts';
import type { ApiInstance } from '../types.ts';
import { TAG, type GexContext } from './context.ts';
import { parseExpiry, venueFilter } from '../params/query-params.ts';
import { gexMeta } from './respond.ts';
import { pointInTimeMeta, snapshotForRequest } from './point-in-time.ts';
import { maxPainData, maxPainQuery } from './schemas.ts';

const DAY_MS = 86_400_000;

/** GET /v2/gex/max-pain: max pain per open expiry of the latest snapshot (or as of an instant), for a venue filter. */
export async function maxPainRoute(app: ApiInstance, ctx: GexContext): Promise<void> {
  app.get('/v2/gex/max-pain', {
    schema: {
      tags: [TAG],
      summary: 'Max pain per expiry',
      description:
        'Per open expiry of the latest snapshot (or the newest at or before `as_of`, never after): the strike minimising the USD intrinsic payout of all open contracts and that payout; `expiry` selects one (404 when not listed); `exchanges` re-aggregates the open interest of the chosen venues.',
      querystring: maxPainQuery,
      response: responses(maxPainData, { auth: true }),
    },
    handler: async (request) => {
      const q = request.query;
      const { snap, at } = await snapshotForRequest(ctx, request, q.symbol, q.as_of);
      const pit = pointInTimeMeta(at, snap.meta.computed_at);
      const filter = venueFilter(q.exchanges);
      const r = await ctx.memo.get(snap, `max-pain|${filter.key}`, () => maxPainOfSnapshot(snap, filter.venues));
      const day = q.expiry === undefined ? null : parseExpiry(q.expiry);
      const picked = day === null ? r.expiries : r.expiries.filter((e) => e.expiry >= day && e.expiry < day + DAY_MS);
      if (day !== null && picked.length === 0) throw notFound(`expiry ${q.expiry ?? ''} is not listed for ${q.symbol}`);
      const data = {
        symbol: q.symbol,
        expiries: picked.map((e) => ({
          expiry: new Date(e.expiry).toISOString(),
          strike: e.max_pain?.strike ?? null,
          value: e.max_pain?.value ?? null,
        })),
      };
      return ctx.respond.ok(
        request,
        data,
        gexMeta(ctx.clock(), {
          symbol: q.symbol,
          spotPrice: r.spot,
          computedAt: r.snapshotAt,
          source: r.venues,
          ...(filter.applied !== undefined ? { exchangesFiltered: filter.applied } : {}),
          extra: pit.extra,
          ...(pit.history !== undefined ? { history: pit.history } : {}),
        }),
      );
    },
  });
}
