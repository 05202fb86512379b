import { SYMBOLS } from '#schemas/events.ts';
import { categoryStates, overall } from './freshness.ts';
import { statusData, symbolQuery } from './schemas.ts';
import { responses } from '../envelope/envelope-schemas.ts';
import type { ApiInstance } from '../types.ts';
import { TAG, type DiscoveryContext } from './context.ts';

/** GET /v2/status: per symbol, per data category: fresh / stale / missing from the newest raw row. */
export async function statusRoute(app: ApiInstance, ctx: DiscoveryContext): Promise<void> {
  app.get('/v2/status', {
    schema: {
      tags: [TAG],
      summary: 'Data health per symbol and category',
      description:
        'For each symbol and data category (raw table): fresh when the newest row is within the category threshold, stale when older, missing without rows.',
      querystring: symbolQuery,
      response: responses(statusData, { auth: true }),
    },
    handler: async (request) => {
      const coverage = await ctx.market.coverage();
      const now = ctx.clock();
      const wanted = request.query.symbol === undefined ? SYMBOLS : [request.query.symbol];
      const symbols = wanted.map((symbol) => {
        const states = categoryStates(coverage, symbol, now);
        return {
          symbol,
          status: overall(states),
          categories: states.map((s) => ({
            category: s.category.category,
            table: s.category.table,
            status: s.status,
            last_ts: s.lastMs === null ? null : new Date(s.lastMs).toISOString(),
            age_seconds: s.ageSeconds,
            fresh_within_seconds: s.category.freshSeconds,
          })),
        };
      });
      return ctx.respond.ok(request, { symbols });
    },
  });
}
