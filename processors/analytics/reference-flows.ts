/** /v2/etf/flows data from stored or parsed days: per-fund flows, daily totals, running cumulatives. Pure. */

export interface FlowDay {
  readonly date: string;
  readonly funds: readonly string[];
  /** US$ millions per fund. */
  readonly flows: readonly number[];
  readonly total: number;
}

const r2 = (v: number): number => Math.round(v * 100) / 100;

/**
 * Funds in first-listed order across the days; each day's `flows` has every fund (0 when the day's table did
 * not list it, i.e. before its launch). Cumulatives run from the first day, rounded to cents of a million.
 */
export function etfFlowsData(asset: string, region: string, days: readonly FlowDay[]) {
  const sorted = [...days].sort((a, b) => (a.date < b.date ? -1 : 1));
  const funds: string[] = [];
  for (const d of sorted) for (const f of d.funds) if (!funds.includes(f)) funds.push(f);
  const fundCum = new Map(funds.map((f) => [f, 0]));
  let cumulative = 0;
  const rows = sorted.map((d) => {
    const flows: Record<string, number> = {};
    for (const f of funds) {
      const i = d.funds.indexOf(f);
      const v = i < 0 ? 0 : (d.flows[i] ?? 0);
      flows[f] = v;
      fundCum.set(f, (fundCum.get(f) ?? 0) + v);
    }
    cumulative += d.total;
    return { date: d.date, flows, total: d.total, cumulative: r2(cumulative) };
  });
  return {
    asset,
    region,
    unit: 'usd_millions' as const,
    funds,
    days: rows,
    cumulative_by_fund: Object.fromEntries(funds.map((f) => [f, r2(fundCum.get(f) ?? 0)])),
    cumulative_total: r2(cumulative),
  };
}

/** Whole days from `latestDate` (00:00 UTC) to `nowMs`, never negative. */
export function daysSince(latestDate: string, nowMs: number): number {
  return Math.max(0, Math.floor((nowMs - Date.parse(`${latestDate}T00:00:00Z`)) / 86_400_000));
}

/** One filer's quarter for one CUSIP (several parts of a filing already summed or not: summed here). */
export interface HolderPosition {
  readonly cik: string;
  readonly filerName: string;
  readonly periodEnd: string;
  readonly shares: number;
  readonly valueUsd: number;
}

/** The calendar quarter end before a quarter end: 2026-03-31 -> 2025-12-31. */
export function priorQuarterEnd(periodEnd: string): string {
  const y = Number(periodEnd.slice(0, 4));
  const m = Number(periodEnd.slice(5, 7));
  const q = Math.ceil(m / 3) - 1; // quarters before this one in the year
  if (q === 0) return `${y - 1}-12-31`;
  return new Date(Date.UTC(y, q * 3, 0)).toISOString().slice(0, 10);
}

/**
 * /v2/filings/holders data: the latest quarter's holders of a CUSIP by shares (largest first), each with
 * `share_change` = shares − shares in the prior calendar quarter, null when the filer did not report the CUSIP then.
 */
export function holdersData(ticker: string, cusip: string, positions: readonly HolderPosition[], limit: number) {
  const byKey = new Map<string, HolderPosition>();
  for (const p of positions) {
    const k = `${p.cik}|${p.periodEnd}`;
    const prev = byKey.get(k);
    byKey.set(k, prev === undefined ? p : { ...prev, shares: prev.shares + p.shares, valueUsd: prev.valueUsd + p.valueUsd });
  }
  const periods = [...new Set([...byKey.values()].map((p) => p.periodEnd))].sort();
  const latest = periods.at(-1) ?? null;
  const prior = latest === null ? null : priorQuarterEnd(latest);
  const current = [...byKey.values()].filter((p) => p.periodEnd === latest);
  current.sort((a, b) => b.shares - a.shares || (a.cik < b.cik ? -1 : 1));
  const holders = current.slice(0, limit).map((p) => {
    const before = prior === null ? undefined : byKey.get(`${p.cik}|${prior}`);
    return {
      cik: p.cik,
      name: p.filerName,
      shares: p.shares,
      value_usd: p.valueUsd,
      share_change: before === undefined ? null : p.shares - before.shares,
      period_end: p.periodEnd,
    };
  });
  return { ticker, cusip, period_end: latest, prior_period_end: prior, holder_count: current.length, holders };
}
