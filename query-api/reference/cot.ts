import type { CotAssetClass } from '#processors/analytics/cot-markets.ts';
import { instrumentHistory, marketEntry, summaryRows } from '#processors/analytics/cot-rows.ts';
import { cotSeries, type CotSeries } from '#processors/analytics/cot-summary.ts';
import { SPAN_DAYS, type CotSpan } from '#processors/analytics/cot-stats.ts';
import { clampDated, dayStart } from '../limits/dated-history.ts';
import type { HistoryPolicy } from '../limits/history-clamp.ts';
import { notFound } from '../envelope/errors.ts';
import { readCotVersion, readCotWeeks } from './read.ts';
import { responses } from '../envelope/envelope-schemas.ts';
import type { ApiInstance, AppContext } from '../types.ts';
import { cotInstrumentData, cotInstrumentQuery, cotMarketsData, cotSummaryData, cotSummaryQuery } from './schemas.ts';

const TAG = 'cot';
const DAY_MS = 86_400_000;
const latestOf = (dates: readonly string[]): string | undefined => [...dates].sort().at(-1);

/** Days of history a summary reads: the span's z-score and the 1-year and 3-year percentiles. */
const summaryReach = (span: CotSpan): number => Math.max(SPAN_DAYS[span], SPAN_DAYS['3y']);

/**
 * The plan's history window on COT series: the request reaches `reachDays` back from the newest week (all of it
 * for `all`); enforced, each market keeps only its weeks inside the window before any statistic is computed.
 */
function clampSeries(all: readonly CotSeries[], reachDays: number, policy: HistoryPolicy) {
  const dates = all.flatMap((s) => [s.weeks[0]?.reportDate, s.weeks.at(-1)?.reportDate]).filter((d) => d !== undefined);
  const first = dates.reduce((a, b) => (b < a ? b : a), dates[0] ?? '');
  const latest = latestOf(dates) ?? first;
  // The span reaches back from the newest week, but never before the first stored week (nothing older is read).
  const requestedFrom = Math.max(dayStart(first), dayStart(latest) - reachDays * DAY_MS);
  const weeks = all.flatMap((s) => s.weeks.map((w) => ({ s, w })));
  const { items, history } = clampDated(weeks, (x) => x.w.reportDate, requestedFrom, policy);
  if (items.length === weeks.length) return { series: all, history };
  const kept = new Set(items.map((x) => x.w));
  const series = all.map((s) => ({ ...s, weeks: s.weeks.filter((w) => kept.has(w)) })).filter((s) => s.weeks.length > 0);
  return { series, history };
}

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
        "One row per market of the asset class: the latest week's long, short and net contracts per trader category, weekly change, net as % of open interest, percentile in the 1-year and 3-year range, z-score over the span, extreme flags; smart and fast money as /v2/cot/markets defines them; extremity and divergence (formulas: processors/README.md). Bounded by the plan's history window: evaluation keys see only the weeks inside it (every statistic is computed from those weeks), other plans are served in full with the clamp reported in meta.extra.history_clamp.",
      querystring: cotSummaryQuery,
      response: responses(cotSummaryData, { auth: true }),
    },
    handler: async (request) => {
      const q = request.query;
      const assetClass = (q.asset_class ?? 'crypto') as CotAssetClass | 'all';
      const span = q.span ?? '3y';
      const sort = q.sort ?? 'extremity';
      const extremesOnly = q.extremes_only === 'true';
      const { series, history } = clampSeries(await allSeries(), summaryReach(span), ctx.historyPolicy(request));
      const rows = summaryRows(series, { assetClass, span, sort, limit: q.limit ?? 50, extremesOnly });
      const latest = latestOf(rows.map((r) => r.date));
      return ctx.respond.ok(
        request,
        { asset_class: assetClass, span, sort, extremes_only: extremesOnly, rows },
        {
          history_depth_enforced: history.history_depth_enforced,
          extra: { ...(latest === undefined ? {} : { latest_date: latest }), ...(history.extra ?? {}) },
        },
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
        "One market's weekly history over the span: positions per category, net, open interest, percentiles (1y, 3y) and z-score over the span, each over the week's own trailing windows. Bounded by the plan's history window: evaluation keys see only the weeks inside it (every statistic is computed from those weeks), other plans are served in full with the clamp reported in meta.extra.history_clamp.",
      querystring: cotInstrumentQuery,
      response: responses(cotInstrumentData, { auth: true }),
    },
    handler: async (request) => {
      const stored = cotSeries(await readCotWeeks(ctx.store, request.query.id))[0];
      if (stored === undefined) throw notFound(`no Commitments of Traders data for market ${request.query.id}`);
      const span = request.query.span ?? '3y';
      const { series, history } = clampSeries([stored], SPAN_DAYS[span], ctx.historyPolicy(request));
      const served = series[0];
      if (served === undefined || served.weeks.length === 0)
        throw notFound(`no Commitments of Traders week of market ${request.query.id} inside the plan's history window`);
      return ctx.respond.ok(request, instrumentHistory(served, span), {
        history_depth_enforced: history.history_depth_enforced,
        extra: { latest_date: served.weeks.at(-1)?.reportDate, ...(history.extra ?? {}) },
      });
    },
  });
}
