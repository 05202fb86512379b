/**
 * Pure statistics of the Commitments of Traders analytics (processors/README.md "COT positioning").
 * Windows are trailing and include the week they describe.
 */

export const COT_SPANS = ['1y', '3y', '5y', 'all'] as const;
export type CotSpan = (typeof COT_SPANS)[number];

/** Calendar days a span reaches back (a week d is in the window of week t when t − days < d ≤ t). */
export const SPAN_DAYS: Readonly<Record<CotSpan, number>> = { '1y': 365, '3y': 1095, '5y': 1826, all: Number.POSITIVE_INFINITY };

const DAY_MS = 86_400_000;

/** Index of the first week inside the span ending at `dates[end]` (dates ascending, YYYY-MM-DD). */
export function windowStart(dates: readonly string[], end: number, span: CotSpan): number {
  const days = SPAN_DAYS[span];
  if (!Number.isFinite(days)) return 0;
  const t = Date.parse(`${dates[end] ?? ''}T00:00:00Z`);
  let i = end;
  while (i > 0 && t - Date.parse(`${dates[i - 1] ?? ''}T00:00:00Z`) < days * DAY_MS) i--;
  return i;
}

/**
 * Percentile rank of `x` among `window` (which contains x itself), 0–100: 100 × (weeks below x + ½ × other
 * weeks equal to x) / (n − 1). The lowest value of the window is 0, the highest 100, the median 50.
 * Null for fewer than 2 weeks.
 */
export function percentileRank(window: readonly number[], x: number): number | null {
  const n = window.length;
  if (n < 2) return null;
  let below = 0;
  let equal = -1; // x itself
  for (const v of window) {
    if (v < x) below++;
    else if (v === x) equal++;
  }
  return (100 * (below + 0.5 * equal)) / (n - 1);
}

/** (x − mean) / sample standard deviation (n − 1) of the window; null for fewer than 3 weeks or no dispersion. */
export function zScore(window: readonly number[], x: number): number | null {
  const n = window.length;
  if (n < 3) return null;
  const mean = window.reduce((a, b) => a + b, 0) / n;
  const variance = window.reduce((a, b) => a + (b - mean) * (b - mean), 0) / (n - 1);
  if (!(variance > 0)) return null;
  return (x - mean) / Math.sqrt(variance);
}

/** Fewest weeks in the 1-year window for its percentile to flag an extreme (2 weeks would always be 0 or 100). */
export const EXTREME_MIN_WEEKS = 5;

/**
 * Extreme positioning: 1-year percentile ≥ 95 (high) or ≤ 5 (low) when the window holds at least
 * EXTREME_MIN_WEEKS weeks; or z-score over the span ≥ 2 (high) or ≤ −2 (low).
 */
export function extremeFlags(
  percentile1y: number | null,
  z: number | null,
  weeks1y = EXTREME_MIN_WEEKS,
): { readonly extreme_high: boolean; readonly extreme_low: boolean } {
  if (weeks1y < EXTREME_MIN_WEEKS) percentile1y = null;
  return {
    extreme_high: (percentile1y !== null && percentile1y >= 95) || (z !== null && z >= 2),
    extreme_low: (percentile1y !== null && percentile1y <= 5) || (z !== null && z <= -2),
  };
}

/** Rounds for the wire (stable JSON, no 17-digit noise). */
export const round = (v: number | null, digits = 4): number | null => (v === null ? null : Math.round(v * 10 ** digits) / 10 ** digits);
