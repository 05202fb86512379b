import type { CotAssetClass } from './cot-markets.ts';
import { round, windowStart, type CotSpan } from './cot-stats.ts';
import { weekStats, type CategoryStats, type CotSeries, type CotWeek } from './cot-summary.ts';

/** The rows of /v2/cot/summary, /v2/cot/markets and /v2/cot/instrument, built from series. Pure. */

export const COT_SORTS = ['extremity', 'wow_abs', 'divergence', 'net', 'percentile'] as const;
export type CotSort = (typeof COT_SORTS)[number];

export interface CotSummaryRow {
  readonly id: string;
  readonly name: string;
  readonly asset_class: CotAssetClass;
  readonly report: string;
  readonly variant: string;
  readonly date: string;
  readonly weeks: number;
  readonly open_interest: number;
  readonly open_interest_change: number | null;
  readonly smart: string;
  readonly fast: string;
  readonly categories: CategoryStats[];
  /** max(|z smart|, |z fast|) over the span. */
  readonly extremity: number | null;
  /** |z smart − z fast| over the span. */
  readonly divergence: number | null;
  readonly extreme: boolean;
}

/** The fields naming a market in every COT answer. */
const identity = (s: CotSeries) => ({
  id: s.id,
  name: s.name,
  asset_class: s.assetClass,
  report: s.report,
  variant: s.variant,
  smart: s.smart,
  fast: s.fast,
});

const abs = (v: number | null | undefined): number | null => (v === null || v === undefined ? null : Math.abs(v));
const maxOf = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.max(a, b));

export function summaryRow(s: CotSeries, span: CotSpan): CotSummaryRow {
  const end = s.weeks.length - 1;
  const latest = s.weeks[end] as CotWeek;
  const prev = s.weeks[end - 1];
  const categories = weekStats(s, end, span);
  const smart = categories.find((c) => c.role === 'smart');
  const fast = categories.find((c) => c.role === 'fast');
  const zs = smart?.zscore ?? null;
  const zf = fast?.zscore ?? null;
  return {
    ...identity(s),
    date: latest.reportDate,
    weeks: s.weeks.length,
    open_interest: latest.openInterest,
    open_interest_change: prev === undefined ? null : latest.openInterest - prev.openInterest,
    categories,
    extremity: round(maxOf(abs(zs), abs(zf)), 3),
    divergence: zs === null || zf === null ? null : round(Math.abs(zs - zf), 3),
    extreme: [smart, fast].some((c) => c !== undefined && (c.extreme_high || c.extreme_low)),
  };
}

/** Sort value, larger first (null last). See processors/README.md "COT positioning". */
export function sortValue(row: CotSummaryRow, sort: CotSort): number | null {
  const fast = row.categories.find((c) => c.role === 'fast');
  switch (sort) {
    case 'extremity':
      return row.extremity;
    case 'divergence':
      return row.divergence;
    case 'wow_abs':
      return fast?.change === null || fast === undefined || row.open_interest === 0 ? null : Math.abs(fast.change) / row.open_interest;
    case 'net':
      return abs(fast?.net_pct_oi);
    case 'percentile':
      return fast?.percentile_1y === null || fast === undefined ? null : Math.abs(fast.percentile_1y - 50);
  }
}

export interface SummaryQuery {
  readonly assetClass: CotAssetClass | 'all';
  readonly span: CotSpan;
  readonly sort: CotSort;
  readonly limit: number;
  readonly extremesOnly: boolean;
}

export function summaryRows(series: readonly CotSeries[], q: SummaryQuery): CotSummaryRow[] {
  const rows = series.filter((s) => q.assetClass === 'all' || s.assetClass === q.assetClass).map((s) => summaryRow(s, q.span));
  const kept = q.extremesOnly ? rows.filter((r) => r.extreme) : rows;
  const keyed = kept.map((r) => ({ r, v: sortValue(r, q.sort) }));
  keyed.sort((a, b) => (a.v === null ? (b.v === null ? 0 : 1) : b.v === null ? -1 : b.v - a.v) || (a.r.id < b.r.id ? -1 : 1));
  return keyed.slice(0, q.limit).map((k) => k.r);
}

export function marketEntry(s: CotSeries) {
  return {
    ...identity(s),
    categories: [...(s.weeks.at(-1)?.categories ?? [])],
    first_date: s.weeks[0]?.reportDate ?? '',
    latest_date: s.weeks.at(-1)?.reportDate ?? '',
    weeks: s.weeks.length,
  };
}

/** One market's weekly history over the span ending at its latest week; each week's stats over its own trailing windows. */
export function instrumentHistory(s: CotSeries, span: CotSpan) {
  const dates = s.weeks.map((w) => w.reportDate);
  const last = s.weeks.length - 1;
  const from = windowStart(dates, last, span);
  const weeks = [];
  for (let i = from; i <= last; i++) {
    const w = s.weeks[i] as CotWeek;
    weeks.push({ date: w.reportDate, open_interest: w.openInterest, categories: weekStats(s, i, span) });
  }
  return { ...marketEntry(s), span, history: weeks };
}
