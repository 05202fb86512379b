import { daysSince, etfFlowsData } from '#processors/analytics/reference-flows.ts';
import { notFound, validationError } from '../envelope/errors.ts';
import { readEtfDays } from './read.ts';
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
        'Daily net creations − redemptions per fund in US$ millions, daily totals and running cumulatives (from the first loaded day), for the spot ETFs of an asset. Region us (default) or hk (BTC only). 404 when no data exists. meta.extra: region, latest_date, days_since_latest.',
      querystring: etfQuery,
      response: responses(etfData, { auth: true }),
    },
    handler: async (request) => {
      const asset = request.query.asset ?? 'BTC';
      const region = request.query.region ?? 'us';
      if (region === 'hk' && asset !== 'BTC') {
        throw validationError([{ name: 'region', location: 'query', message: 'hk flows are served for BTC only', received: region }]);
      }
      const days = await readEtfDays(ctx.store, region, asset);
      const latest = days.at(-1)?.date;
      if (latest === undefined) throw notFound(`no ETF flow data for ${asset} (${region})`);
      return ctx.respond.ok(request, etfFlowsData(asset, region, days), {
        extra: { region, latest_date: latest, days_since_latest: daysSince(latest, ctx.clock()) },
      });
    },
  });
}
