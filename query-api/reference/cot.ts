import type { CotAssetClass } from '#processors/analytics/cot-markets.ts';
import { instrumentHistory, marketEntry, summaryRows } from '#processors/analytics/cot-rows.ts';
import { cotSeries } from '#processors/analytics/cot-summary.ts';
import { notFound } from '../envelope/errors.ts';
import { readCotVersion, readCotWeeks } from './read.ts';
import { responses } from '../envelope/envelope-schemas.ts';
import type { ApiInstance, AppContext } from '../types.ts';
import { cotInstrumentData, cotInstrumentQuery, cotMarketsData, cotSummaryData, cotSummaryQuery } from './schemas.ts';

const TAG = 'cot';
const latestOf = (dates: readonly string[]): string | undefined => [...dates].sort().at(-1);

/** GET /v2/cot/summary, /v2/cot/markets, /v2/cot/instrument: CFTC Commitments of Traders positioning. */
export async function cotRoutes(app: ApiInstance, ctx: AppContext): Promise<void> {
  // The series of every market, rebuilt only when the stored data changed (a cheap version query per request):
  // COT data changes weekly, and reading + deriving every market's history costs ~250 ms.
  let memo: { readonly version: string; readonly series: Promise<ReturnType<typeof cotSeries>> } | undefined;
  const allSeries = async () => {
    const version = await readCotVersion(ctx.store);
    if (memo?.version !== version) {
      const entry = { version, series: readCotWeeks(ctx.store).then(cotSeries) };
      entry.series.catch(() => {
        if (memo === entry) memo = undefined;
      });
      memo = entry;
    }
    const series = await memo.series;
    if (series.length === 0) throw notFound('no Commitments of Traders data loaded');
    return series;
  };

  app.get('/v2/cot/summary', {
    schema: {
      tags: [TAG],
      summary: 'COT positioning summary',
      description:
        "One row per market of the asset class: the latest week's long, short and net contracts per trader category, weekly change, net as % of open interest, percentile in the 1-year and 3-year range, z-score over the span, extreme flags; smart and fast money as /v2/cot/markets defines them; extremity and divergence (formulas: processors/README.md).",
      querystring: cotSummaryQuery,
      response: responses(cotSummaryData, { auth: true }),
    },
    handler: async (request) => {
      const q = request.query;
      const assetClass = (q.asset_class ?? 'crypto') as CotAssetClass | 'all';
      const span = q.span ?? '3y';
      const sort = q.sort ?? 'extremity';
      const extremesOnly = q.extremes_only === 'true';
      const rows = summaryRows(await allSeries(), { assetClass, span, sort, limit: q.limit ?? 50, extremesOnly });
      const latest = latestOf(rows.map((r) => r.date));
      return ctx.respond.ok(
        request,
        { asset_class: assetClass, span, sort, extremes_only: extremesOnly, rows },
        latest === undefined ? {} : { extra: { latest_date: latest } },
      );
    },
  });

  app.get('/v2/cot/markets', {
    schema: {
      tags: [TAG],
      summary: 'COT markets',
      description:
        'Every loaded market: id (CFTC contract market code, the key of /v2/cot/instrument), asset class, the report it is read from and the trader categories compared as smart and fast money.',
      response: responses(cotMarketsData, { auth: true }),
    },
    handler: async (request) => ctx.respond.ok(request, { markets: (await allSeries()).map(marketEntry) }),
  });

  app.get('/v2/cot/instrument', {
    schema: {
      tags: [TAG],
      summary: 'COT market history',
      description:
        "One market's weekly history over the span: positions per category, net, open interest, percentiles (1y, 3y) and z-score over the span, each over the week's own trailing windows.",
      querystring: cotInstrumentQuery,
      response: responses(cotInstrumentData, { auth: true }),
    },
    handler: async (request) => {
      const series = cotSeries(await readCotWeeks(ctx.store, request.query.id))[0];
      if (series === undefined) throw notFound(`no Commitments of Traders data for market ${request.query.id}`);
      return ctx.respond.ok(request, instrumentHistory(series, request.query.span ?? '3y'), {
        extra: { latest_date: series.weeks.at(-1)?.reportDate },
      });
    },
  });
}
