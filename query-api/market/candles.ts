import { aggregation } from '../envelope/aggregation.ts';
import { marketMeta } from './meta.ts';
import type { MarketReadCache } from './read-cache.ts';
import { responses } from '../envelope/envelope-schemas.ts';
import type { ApiInstance, AppContext } from '../types.ts';
import type { z } from 'zod';
import { candlesData, candlesQuery } from './schemas.ts';
import { sendMarket } from './send.ts';
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
    handler: async (request, reply) => {
      const q = request.query;
      const w = servedWindow(ctx, request, q, true);
      const market = q.market ?? 'perp';
      const candles = await cache.candles(ctx.store, w.grid, q.symbol, market);
      // JSON.stringify of {symbol, interval, market, timestamps, ...columns}.
      const head = `{"symbol":${JSON.stringify(q.symbol)},"interval":${JSON.stringify(w.interval)},"market":${JSON.stringify(market)},"timestamps":${candles.timestamps}`;
      return sendMarket<z.output<typeof candlesData>>(
        ctx,
        request,
        reply,
        `${head},${candles.body}}`,
        marketMeta({
          now: w.now,
          symbol: q.symbol,
          grid: w.grid,
          hours: w.hours,
          series: new Map([['candles', candles]]),
          extra: { market, aggregation: aggregation('sum', w.interval, 'ohlcv'), ...w.history.extra },
          historyDepthEnforced: w.history.history_depth_enforced,
        }),
      );
    },
  });
}
