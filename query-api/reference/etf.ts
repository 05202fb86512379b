import { daysSince, etfFlowsData } from '#processors/analytics/reference-flows.ts';
import { notFound, validationError } from '../envelope/errors.ts';
import { readEtfDays } from './read.ts';
import { clampDated, dayStart } from '../limits/dated-history.ts';
import { responses } from '../envelope/envelope-schemas.ts';
import type { ApiInstance, AppContext } from '../types.ts';
import { etfData, etfQuery } from './schemas.ts';

/** GET /v2/etf/flows: daily per-fund spot-ETF flows (US$ millions), totals and running cumulatives. */
export async function etfFlowsRoute(app: ApiInstance, ctx: AppContext): Promise<void> {
  app.get('/v2/etf/flows', {
    schema: {
      tags: ['etf'],
      summary: 'Spot ETF flows',
      description:
        'Daily net creations − redemptions per fund in US$ millions, daily totals and running cumulatives (from the first served day), for the spot ETFs of an asset. Region us (default) or hk (BTC only). 404 when no data exists. Bounded by the history window of the plan (evaluation keys: days before it are not served and the cumulatives start at the first served day; other plans: reported in meta.extra.history_clamp). Cached about 30 s. meta.extra: region, latest_date, days_since_latest, history_clamp.',
      querystring: etfQuery,
      response: responses(etfData, { auth: true }),
    },
    handler: async (request, reply) => {
      const asset = request.query.asset ?? 'BTC';
      const region = request.query.region ?? 'us';
      if (region === 'hk' && asset !== 'BTC') {
        throw validationError([{ name: 'region', location: 'query', message: 'hk flows are served for BTC only', received: region }]);
      }
      const policy = ctx.historyPolicy(request);
      const { data, meta } = await ctx.routeCache.answer(
        reply,
        'etf_flows',
        [asset, region, policy.historyDays, policy.enforced],
        async () => {
          const stored = await readEtfDays(ctx.store, region, asset);
          const first = stored[0]?.date;
          if (first === undefined) throw notFound(`no ETF flow data for ${asset} (${region})`);
          const { items: days, history } = clampDated(stored, (d) => d.date, dayStart(first), policy);
          const latest = days.at(-1)?.date ?? null;
          return {
            data: etfFlowsData(asset, region, days),
            meta: {
              history_depth_enforced: history.history_depth_enforced,
              extra: {
                region,
                latest_date: latest,
                days_since_latest: latest === null ? null : daysSince(latest, policy.now),
                ...(history.extra ?? {}),
              },
            },
          };
        },
      );
      return ctx.respond.ok(request, data, meta);
    },
  });
}
