import { timestamps } from '../../market/grid.ts';
import { marketMeta } from '../../market/meta.ts';
import type { MarketReadCache } from '../../market/read-cache.ts';
import { responses } from '../../schemas/envelope.ts';
import type { ApiInstance, AppContext } from '../../types.ts';
import { candlesData, candlesQuery } from './schemas.ts';
import { servedWindow } from './window.ts';

export const TAG = 'market';

/** GET /v2/market/candles: cross-venue OHLCV with the taker buy/sell split, perpetual (default) or spot. */
export async function candlesRoute(app: ApiInstance, ctx: AppContext, cache: MarketReadCache): Promise<void> {
  app.get('/v2/market/candles', {
    schema: {
      tags: [TAG],
      summary: 'Candles (OHLCV)',
      description:
        'Cross-venue OHLCV of the perpetual (default) or spot trades of a symbol, with the taker buy/sell split, as column arrays aligned with `timestamps`; a bucket without trades is null. At most 30,000 points.',
      querystring: candlesQuery,
      response: responses(candlesData, { auth: true }),
    },
    handler: async (request) => {
      const q = request.query;
      const w = servedWindow(ctx, request, q);
      const market = q.market ?? 'perp';
      const candles = await cache.candles(ctx.store, w.grid, q.symbol, market);
      const data = { symbol: q.symbol, interval: w.interval, market, timestamps: timestamps(w.grid), ...candles.columns };
      return ctx.respond.ok(
        request,
        data,
        marketMeta({
          now: w.now,
          symbol: q.symbol,
          grid: w.grid,
          hours: w.hours,
          series: new Map([['candles', candles]]),
          extra: { market, ...w.history.extra },
          historyDepthEnforced: w.history.history_depth_enforced,
        }),
      );
    },
  });
}
