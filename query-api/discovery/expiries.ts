import { SYMBOLS } from '#schemas/events.ts';
import { daysToExpiry, expiryToken, isoDate } from './expiry-token.ts';
import { expiriesData, expiriesQuery } from './schemas.ts';
import { responses } from '../envelope/envelope-schemas.ts';
import type { ApiInstance } from '../types.ts';
import { TAG, type DiscoveryContext } from './context.ts';

/** GET /v2/expiries: active option expiries per symbol with days to expiry. */
export async function expiriesRoute(app: ApiInstance, ctx: DiscoveryContext): Promise<void> {
  app.get('/v2/expiries', {
    schema: {
      tags: [TAG],
      summary: 'Active expiries',
      description:
        "Active option expiries per symbol (from the instruments table): token ('27DEC24'), ISO date, expiry instant, days to expiry, listing venues.",
      querystring: expiriesQuery,
      response: responses(expiriesData, { auth: true }),
    },
    handler: async (request) => {
      const { symbol, venue, max_dte } = request.query;
      const rows = await ctx.market.expiries();
      const now = ctx.clock();
      const wanted = symbol === undefined ? SYMBOLS : [symbol];
      const symbols = wanted.map((s) => {
        const byExpiry = new Map<number, { venues: Set<string>; instruments: number }>();
        for (const r of rows) {
          if (r.symbol !== s || r.expiryMs <= now) continue;
          if (max_dte !== undefined && r.expiryMs - now > max_dte * 86_400_000) continue;
          const e = byExpiry.get(r.expiryMs) ?? { venues: new Set<string>(), instruments: 0 };
          e.venues.add(r.venue);
          e.instruments += r.instruments;
          byExpiry.set(r.expiryMs, e);
        }
        const expiries = [...byExpiry]
          .filter(([, e]) => venue === undefined || e.venues.has(venue))
          .sort(([a], [b]) => a - b)
          .map(([ms, e]) => ({
            token: expiryToken(ms),
            date: isoDate(ms),
            expiry_ts: new Date(ms).toISOString(),
            dte: daysToExpiry(ms, now),
            venues: [...e.venues].sort(),
            instruments: e.instruments,
          }));
        return { symbol: s, count: expiries.length, expiries };
      });
      return ctx.respond.ok(request, { symbols });
    },
  });
}
