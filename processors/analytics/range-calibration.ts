/**
 * Calibrated range, the calibration half (pure). Methodology: processors/README.md "Calibrated range".
 *   sigma_h(t)   = DVOL(t) / 100 · sqrt(h / HOURS_PER_YEAR)              (DVOL in vol points, annualised)
 *   ratio_h(t)   = |ln(P(t + h) / P(t))| / sigma_h(t)                     (one sample per hour t: overlapping moves)
 *   factor_{h,L} = empirical quantile L (type 7, linear) of ratio_h over the samples with
 *                  T - 30 days <= t and t + h <= T, T = the instant the band is issued (out of sample)
 *   band         = [S · exp(-factor · sigma), S · exp(+factor · sigma)]
 * With fewer than MIN_SAMPLES samples the factor is the normal quantile (uncalibrated DVOL band).
 */

export const HOUR_MS = 3_600_000;
export const HOURS_PER_YEAR = 8760;
export const CALIBRATION_DAYS = 30;
export const MIN_SAMPLES = 24;
export const LEVELS = [0.68, 0.9] as const;
export type Level = (typeof LEVELS)[number];
/** Two-sided normal quantiles: P(|Z| <= z) = L. */
export const NORMAL_FACTOR: Readonly<Record<Level, number>> = { 0.68: 0.9944578832097535, 0.9: 1.6448536269514722 };

/** A value per aligned hour: `t` = hour start (ms UTC). */
export interface HourPoint {
  readonly t: number;
  readonly value: number;
}

export function sigmaOf(dvolPoints: number, hours: number): number {
  return (dvolPoints / 100) * Math.sqrt(hours / HOURS_PER_YEAR);
}

/** Empirical quantile, type 7 (R's default): linear between order statistics. `sorted` ascending, non-empty. */
export function quantile(sorted: readonly number[], q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const a = sorted[lo] ?? Number.NaN;
  const b = sorted[Math.min(lo + 1, sorted.length - 1)] ?? a;
  return a + (b - a) * (pos - lo);
}

export function toHourMap(points: readonly HourPoint[]): Map<number, number> {
  const m = new Map<number, number>();
  for (const p of points) if (Number.isFinite(p.value) && p.value > 0) m.set(p.t, p.value);
  return m;
}

/** ratio_h(t) for every hour t where P(t), P(t + h) and DVOL(t) exist, keyed by t, ascending. */
export function ratioSeries(prices: ReadonlyMap<number, number>, dvols: ReadonlyMap<number, number>, hours: number): HourPoint[] {
  const out: HourPoint[] = [];
  const starts = [...prices.keys()].sort((a, b) => a - b);
  for (const t of starts) {
    const p0 = prices.get(t);
    const p1 = prices.get(t + hours * HOUR_MS);
    const d = dvols.get(t);
    if (p0 === undefined || p1 === undefined || d === undefined) continue;
    out.push({ t, value: Math.abs(Math.log(p1 / p0)) / sigmaOf(d, hours) });
  }
  return out;
}

export interface Calibration {
  readonly samples: number;
  readonly calibrated: boolean;
  readonly factors: Readonly<Record<Level, number>>;
}

function lowerBound(xs: readonly HourPoint[], t: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((xs[mid]?.t ?? 0) < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The factors for a band issued at `at`: samples with at - 30 d <= t and t + h <= at. */
export function calibrateAt(ratios: readonly HourPoint[], hours: number, at: number): Calibration {
  const from = lowerBound(ratios, at - CALIBRATION_DAYS * 24 * HOUR_MS);
  const to = lowerBound(ratios, at - hours * HOUR_MS + 1);
  const sorted = ratios
    .slice(from, to)
    .map((r) => r.value)
    .sort((a, b) => a - b);
  if (sorted.length < MIN_SAMPLES) return { samples: sorted.length, calibrated: false, factors: NORMAL_FACTOR };
  return { samples: sorted.length, calibrated: true, factors: { 0.68: quantile(sorted, 0.68), 0.9: quantile(sorted, 0.9) } };
}

export function bandOf(spot: number, sigma: number, factor: number): [number, number] {
  return [spot * Math.exp(-factor * sigma), spot * Math.exp(factor * sigma)];
}

/** A timestamped observation (a trade price, a DVOL print). */
export interface Observation {
  readonly ts: number;
  readonly value: number;
}

/** Hour opens (the first observation of each hour, as the store's argMin roll-ups) and the newest value. */
export function hourOpens(obs: readonly Observation[]): { readonly points: HourPoint[]; readonly last: number | null } {
  const sorted = obs.filter((o) => Number.isFinite(o.ts) && Number.isFinite(o.value)).sort((a, b) => a.ts - b.ts);
  const points: HourPoint[] = [];
  for (const o of sorted) {
    const t = Math.floor(o.ts / HOUR_MS) * HOUR_MS;
    if (points.at(-1)?.t !== t) points.push({ t, value: o.value });
  }
  return { points, last: sorted.at(-1)?.value ?? null };
}
