import type { CotReport, CotVariant, CotWeek } from '#schemas/reference.ts';

export type { CotWeek };
import { assetClassOf, preferredSource, SMART_FAST, type CotAssetClass } from './cot-markets.ts';
import { extremeFlags, percentileRank, round, windowStart, zScore, type CotSpan } from './cot-stats.ts';

/** A market's weeks from its preferred report, ascending by date. */
export interface CotSeries {
  readonly id: string;
  readonly name: string;
  readonly assetClass: CotAssetClass;
  readonly report: CotReport;
  readonly variant: CotVariant;
  readonly smart: string;
  readonly fast: string;
  readonly weeks: readonly CotWeek[];
}

/** Groups weeks by market and keeps each market's preferred report (cot-markets.ts), dates ascending. */
export function cotSeries(weeks: readonly CotWeek[]): CotSeries[] {
  const bySource = new Map<string, CotWeek[]>();
  for (const w of weeks) {
    const k = `${w.marketCode}|${w.report}|${w.variant}`;
    const list = bySource.get(k) ?? [];
    list.push(w);
    bySource.set(k, list);
  }
  const byMarket = new Map<string, CotWeek[][]>();
  for (const list of bySource.values()) {
    const code = list[0]?.marketCode as string;
    byMarket.set(code, [...(byMarket.get(code) ?? []), list]);
  }
  const out: CotSeries[] = [];
  for (const [id, lists] of byMarket) {
    const best = preferredSource(lists.map((l) => ({ report: (l[0] as CotWeek).report, variant: (l[0] as CotWeek).variant, l })));
    if (best === undefined) continue;
    const sorted = [...best.l].sort((a, b) => (a.reportDate < b.reportDate ? -1 : 1));
    const latest = sorted.at(-1) as CotWeek;
    out.push({
      id,
      name: latest.marketName,
      assetClass: assetClassOf(latest.marketName),
      report: best.report,
      variant: best.variant,
      ...SMART_FAST[best.report],
      weeks: sorted,
    });
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : 1));
}

const net = (w: CotWeek, i: number): number | null => {
  const l = w.long[i];
  const s = w.short[i];
  return l === null || l === undefined || s === null || s === undefined ? null : l - s;
};

export interface CategoryStats {
  readonly category: string;
  readonly role: 'smart' | 'fast' | null;
  readonly long: number | null;
  readonly short: number | null;
  readonly net: number | null;
  readonly change: number | null;
  readonly net_pct_oi: number | null;
  readonly percentile_1y: number | null;
  readonly percentile_3y: number | null;
  readonly zscore: number | null;
  readonly extreme_high: boolean;
  readonly extreme_low: boolean;
}

/** Stats of every category at week `end` of a series; z-score over `span`. */
export function weekStats(s: CotSeries, end: number, span: CotSpan): CategoryStats[] {
  const weeks = s.weeks;
  const dates = weeks.map((w) => w.reportDate);
  const week = weeks[end] as CotWeek;
  const starts = { y1: windowStart(dates, end, '1y'), y3: windowStart(dates, end, '3y'), span: windowStart(dates, end, span) };
  return week.categories.map((category, ci) => {
    const x = net(week, ci);
    const series = (from: number): number[] =>
      weeks.slice(from, end + 1).flatMap((w) => {
        const v = net(w, ci);
        return v === null ? [] : [v];
      });
    const prev = end > 0 ? net(weeks[end - 1] as CotWeek, ci) : null;
    const y1 = series(starts.y1);
    const p1 = x === null ? null : percentileRank(y1, x);
    const z = x === null ? null : zScore(series(starts.span), x);
    return {
      category,
      role: category === s.smart ? 'smart' : category === s.fast ? 'fast' : null,
      long: week.long[ci] ?? null,
      short: week.short[ci] ?? null,
      net: x,
      change: x === null || prev === null ? null : x - prev,
      net_pct_oi: x === null || week.openInterest === 0 ? null : round((100 * x) / week.openInterest, 2),
      percentile_1y: round(p1, 2),
      percentile_3y: round(x === null ? null : percentileRank(series(starts.y3), x), 2),
      zscore: round(z, 3),
      ...extremeFlags(p1, z, y1.length),
    };
  });
}
