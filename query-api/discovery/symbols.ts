import { SYMBOL_BASE, SYMBOLS } from '#schemas/events.ts';
import { categoryStates } from './freshness.ts';
import { symbolsData } from './schemas.ts';
import { responses } from '../envelope/envelope-schemas.ts';
import type { ApiInstance } from '../types.ts';
import { TAG, type DiscoveryContext } from './context.ts';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** GET /v2/symbols: per symbol live categories, freshness, spot, active expiries, routes taking `symbol`. */
export async function symbolsRoute(app: ApiInstance, ctx: DiscoveryContext): Promise<void> {
  app.get('/v2/symbols', {
    schema: {
      tags: [TAG],
      summary: 'Symbol catalog',
      description:
        'Per symbol: live data categories, freshness, spot price, count of active expiries and the endpoint paths accepting `symbol`; from the data in the store (null or 0 when absent).',
      response: responses(symbolsData, { auth: true }),
    },
    handler: async (request) => {
      const [coverage, spot, expiries] = await Promise.all([ctx.market.coverage(), ctx.market.spot(), ctx.market.expiries()]);
      const now = ctx.clock();
      const paths = ctx
        .endpoints()
        .filter((e) => e.parameters.some((p) => p.name === 'symbol'))
        .map((e) => e.path);
      const symbols = SYMBOLS.map((symbol) => {
        const states = categoryStates(coverage, symbol, now);
        const chain = states.find((s) => s.category.table === 'option_tickers');
        const quote = spot.get(symbol);
        return {
          symbol,
          base: SYMBOL_BASE[symbol],
          live_categories: states.filter((s) => s.status === 'fresh').map((s) => s.category.category),
          categories: states.map((s) => ({
            category: s.category.category,
            status: s.status,
            last_ts: iso(s.lastMs),
            freshness_seconds: s.ageSeconds,
          })),
          freshness_seconds: chain?.ageSeconds ?? null,
          spot_price: quote?.price ?? null,
          spot_source: quote?.source ?? null,
          active_expiries: new Set(expiries.filter((e) => e.symbol === symbol && e.expiryMs > now).map((e) => e.expiryMs)).size,
          endpoints: paths,
        };
      });
      return ctx.respond.ok(request, { symbols });
    },
  });
}
