/**
 * The time axis of the market routes (pure). Buckets are aligned to the UTC epoch (so 1d buckets start at
 * 00:00 UTC and 4h buckets at 00, 04, … UTC); the last bucket is the one holding `now` (in progress); a request
 * for H hours at an interval of m minutes has ceil(H·60 / m) buckets.
 */

export const INTERVALS = ['1m', '5m', '15m', '30m', '1h', '4h', '1d'] as const;
export type MarketInterval = (typeof INTERVALS)[number];

export const INTERVAL_MINUTES: Readonly<Record<MarketInterval, number>> = {
  '1m': 1,
  '5m': 5,
  '15m': 15,
  '30m': 30,
  '1h': 60,
  '4h': 240,
  '1d': 1440,
};

/** Spec "Limits": at most 8760 hours, candles at most 30,000 points. */
export const MAX_HOURS = 8760;
export const MAX_POINTS = 30_000;

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

/** Buckets a request for `hours` at `interval` asks for. */
export function pointsFor(interval: MarketInterval, hours: number): number {
  return Math.ceil((hours * 60) / INTERVAL_MINUTES[interval]);
}

/** The largest `hours` whose point count stays within MAX_POINTS (and MAX_HOURS). */
export function maxHoursFor(interval: MarketInterval): number {
  return Math.min(MAX_HOURS, Math.floor((MAX_POINTS * INTERVAL_MINUTES[interval]) / 60));
}

export interface Grid {
  readonly interval: MarketInterval;
  readonly stepMs: number;
  /** Start of the first bucket, ms (inclusive). */
  readonly fromMs: number;
  /** End of the last bucket, ms (exclusive). */
  readonly toMs: number;
  readonly points: number;
}

/**
 * Buckets for the last `hours` ending with the bucket holding `now`. `floorMs` (an enforced history clamp)
 * drops the buckets that start before it.
 */
export function gridFor(interval: MarketInterval, hours: number, now: number, floorMs: number | null = null): Grid {
  const stepMs = INTERVAL_MINUTES[interval] * MINUTE_MS;
  const last = Math.floor(now / stepMs) * stepMs;
  let first = last - (pointsFor(interval, hours) - 1) * stepMs;
  if (floorMs !== null && first < floorMs) first = Math.ceil(floorMs / stepMs) * stepMs;
  const points = Math.max(0, (last - first) / stepMs + 1);
  return { interval, stepMs, fromMs: first, toMs: first + points * stepMs, points };
}

/** The window a grid would cover before any clamp: the start of its first bucket up to now. */
export function requestedWindow(interval: MarketInterval, hours: number, now: number): { readonly from: number; readonly to: number } {
  return { from: gridFor(interval, hours, now).fromMs, to: now };
}

export function timestamps(grid: Grid): number[] {
  return Array.from({ length: grid.points }, (_, i) => grid.fromMs + i * grid.stepMs);
}

/** Index of a bucket start (ms) on the grid, or -1 when it is not on it. */
export function indexOf(grid: Grid, bucketMs: number): number {
  const off = bucketMs - grid.fromMs;
  if (off < 0 || off % grid.stepMs !== 0) return -1;
  const i = off / grid.stepMs;
  return i < grid.points ? i : -1;
}

/** Hours between two instants, two decimals, >= 0 (meta.extra.available_hours). */
export function hoursBetween(fromMs: number, toMs: number): number {
  return Math.max(0, Math.round((toMs - fromMs) / (HOUR_MS / 100)) / 100);
}
