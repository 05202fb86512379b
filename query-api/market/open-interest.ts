import { aggregation } from '../envelope/aggregation.ts';
import { marketMeta } from './meta.ts';
import type { MarketReadCache } from './read-cache.ts';
import { responses } from '../envelope/envelope-schemas.ts';
import type { ApiInstance, AppContext } from '../types.ts';
import { TAG } from './candles.ts';
import type { z } from 'zod';
import { marketQuery, openInterestData } from './schemas.ts';
import { sendMarket } from './send.ts';
import { servedWindow } from './window.ts';

/** GET /v2/market/open-interest: aggregate perpetual open interest on the candles' interval grid. */
export async function openInterestRoute(app: ApiInstance, ctx: AppContext, cache: MarketReadCache): Promise<void> {
  app.get('/v2/market/open-interest', {
    schema: {
      tags: [TAG],
      summary: 'Aggregate perpetual open interest',
      description:
        "Per bucket, the sum over venues of each venue's last published perpetual open interest in the bucket (coins and USD); a venue that published nothing in the bucket does not contribute; a bucket without any is null.",
      querystring: marketQuery,
      response: responses(openInterestData, { auth: true }),
    },
    handler: async (request, reply) => {
      const q = request.query;
      const w = servedWindow(ctx, request, q, false);
      const oi = await cache.openInterest(ctx.store, w.grid, q.symbol);
      // JSON.stringify of {symbol, interval, timestamps, ...columns}.
      const head = `{"symbol":${JSON.stringify(q.symbol)},"interval":${JSON.stringify(w.interval)},"timestamps":${oi.timestamps}`;
      return sendMarket<z.output<typeof openInterestData>>(
        ctx,
        request,
        reply,
        `${head},${oi.body}}`,
        marketMeta({
          now: w.now,
          symbol: q.symbol,
          grid: w.grid,
          hours: w.hours,
          series: new Map([['open_interest', oi]]),
          extra: { aggregation: aggregation('sum', w.interval, 'last'), ...w.history.extra },
          historyDepthEnforced: w.history.history_depth_enforced,
        }),
      );
    },
  });
}
