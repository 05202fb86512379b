import { aggregation } from '../envelope/aggregation.ts';
import { FLOW_SYMBOLS } from '#processors/analytics/dealer.ts';
import { strikeHeat } from '#processors/analytics/strike-heat.ts';
import { notFound } from '../envelope/errors.ts';
import { responses } from '../envelope/envelope-schemas.ts';
import { readSidePremium } from './strike-heat-read.ts';
import type { ApiInstance, AppContext } from '../types.ts';
import { parseCsv } from '../params/query-params.ts';
import { strikeHeatData, strikeHeatQuery } from './schemas.ts';
import { TAG } from './tape.ts';

const HOUR = 3_600_000;

/** GET /v2/tape/strike-heat (BTCUSDT, ETHUSDT): premium per strike by taker side over a lookback. */
export async function strikeHeatRoute(app: ApiInstance, ctx: AppContext): Promise<void> {
  app.get('/v2/tape/strike-heat', {
    schema: {
      tags: [TAG],
      summary: 'Strike heat',
      description:
        'Per strike: taker-bought and taker-sold option premium (USD, trades of at least `min_premium_usd` each), net = buy − sell, total and trade counts over the last `hours` (1-168), ranked by absolute net premium. BTCUSDT and ETHUSDT only.',
      querystring: strikeHeatQuery,
      response: responses(strikeHeatData, { auth: true }),
    },
    handler: async (request, reply) => {
      const q = request.query;
      if (!FLOW_SYMBOLS.includes(q.symbol)) throw notFound(`strike heat is served for ${FLOW_SYMBOLS.join(' and ')} only`);
      const hours = q.hours ?? 24;
      const limit = q.limit ?? 25;
      const minPremiumUsd = q.min_premium_usd === undefined ? 0 : Number(q.min_premium_usd);
      const venues = q.venues === undefined ? [] : [...new Set(parseCsv(q.venues))].sort();
      const key = [q.symbol, hours, limit, minPremiumUsd, venues];
      const { data, meta } = await ctx.routeCache.answer(reply, 'tape_strike_heat', key, async () => {
        const now = ctx.clock();
        const r = await readSidePremium(ctx.store, { symbol: q.symbol, fromMs: now - hours * HOUR, toMs: now, minPremiumUsd, venues });
        return {
          data: {
            symbol: q.symbol,
            hours,
            from: new Date(now - hours * HOUR).toISOString(),
            to: new Date(now).toISOString(),
            min_premium_usd: minPremiumUsd,
            strikes: strikeHeat(r.rows, limit),
          },
          meta: {
            symbol: q.symbol,
            source: r.venues,
            ...(venues.length > 0 ? { exchanges_filtered: venues } : {}),
            extra: { aggregation: aggregation('sum', null, 'sum') },
          },
        };
      });
      return ctx.respond.ok(request, data, meta);
    },
  });
}
