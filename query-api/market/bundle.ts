import { aggregation, type AggregationMethod } from '../envelope/aggregation.ts';
import type { z } from 'zod';
import { bundleUnits, parseSeries } from './bundle-series.ts';
import type { MarketReadCache } from './read-cache.ts';
import { marketMeta } from './meta.ts';
import { SERIES, type SeriesName } from './series.ts';
import { responses } from '../envelope/envelope-schemas.ts';
import type { ApiInstance, AppContext } from '../types.ts';
import { TAG } from './candles.ts';
import { bundleData, bundleQuery } from './schemas.ts';
import { sendMarket, servedTimestamps } from './send.ts';
import { servedWindow } from './window.ts';

/** GET /v2/market/bundle: several market series on one time axis; one quota unit per series. */
/** How each bundle series rolls its bucket up (envelope/aggregation.ts). */
const SERIES_METHOD: Readonly<Record<SeriesName, AggregationMethod>> = {
  candles: 'ohlcv',
  open_interest: 'last',
  funding: 'funding_open_close_mean',
  cvd_perp: 'sum_with_running_total',
  cvd_spot: 'sum_with_running_total',
  liquidations: 'sum',
};

export async function bundleRoute(app: ApiInstance, ctx: AppContext, cache: MarketReadCache): Promise<void> {
  app.get('/v2/market/bundle', {
    schema: {
      tags: [TAG],
      summary: 'Market series bundle',
      description: `Any of ${SERIES.join(', ')} (default all six) on one \`timestamps\` axis (epoch ms), each as column arrays aligned with it; a bucket a series lacks is null (never carried forward); a series that cannot be served is null with the reason in meta.extra.errors. One quota unit per series.`,
      querystring: bundleQuery,
      response: responses(bundleData, { auth: true }),
    },
    config: { quotaUnits: bundleUnits },
    handler: async (request, reply) => {
      const q = request.query;
      const names = parseSeries(q.series) ?? [...SERIES];
      const w = servedWindow(ctx, request, q, names.includes('candles'));
      const { series, errors } = await cache.bundle(ctx.store, w.grid, q.symbol, names);
      // JSON.stringify of {symbol, interval, timestamps, <series>: columns | null, …} with the columns' text as served.
      let data = `{"symbol":${JSON.stringify(q.symbol)},"interval":${JSON.stringify(w.interval)},"timestamps":${servedTimestamps(w.grid, series.values())}`;
      for (const [name, s] of series) data += `,${JSON.stringify(name)}:${s === null ? 'null' : s.json}`;
      return sendMarket<z.output<typeof bundleData>>(
        ctx,
        request,
        reply,
        `${data}}`,
        marketMeta({
          now: w.now,
          symbol: q.symbol,
          grid: w.grid,
          hours: w.hours,
          series,
          extra: {
            series: names,
            aligned: true,
            quota_units_charged: names.length,
            aggregation: aggregation('per_series', w.interval, 'per_series', Object.fromEntries(names.map((n) => [n, SERIES_METHOD[n]]))),
            ...(Object.keys(errors).length > 0 ? { errors } : {}),
            ...w.history.extra,
          },
          historyDepthEnforced: w.history.history_depth_enforced,
        }),
      );
    },
  });
}
