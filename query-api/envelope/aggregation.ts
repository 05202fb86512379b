/**
 * `meta.extra.aggregation` (a known meta key of the contract): how a route's figures were formed from the stored
 * observations, on every route that consolidates venues, rolls observations up into intervals or interpolates
 * across maturities. The vocabulary below is published in /v2/meta (`aggregation`).
 */

export const AGGREGATION_VENUES = {
  sum: 'quantities added across the contributing venues (meta.source); a venue without data in a bucket adds nothing',
  consolidated:
    'one chain of every contributing venue (the chain rule: per contract the venues are combined as the chain route states); `exchanges` re-aggregates',
  single: 'one venue only (named in meta.source)',
  mean: "the venues' values averaged (funding rates)",
  per_series: 'each series of a bundle combines venues as its method states (sum; funding: mean)',
} as const;

export const AGGREGATION_METHODS = {
  last: "each bucket holds every venue's last observation in the bucket (open interest)",
  last_point_per_utc_day: 'the last 5-minute point of each UTC day (a real daily series, not an intraday fallback)',
  ohlcv: 'open, high, low, close of the trades in the bucket, volumes summed, taker buy/sell split',
  sum: 'the observations of the bucket (or the window, when interval is null) summed',
  sum_with_running_total: 'per bucket the sum of its observations, plus running sums from the first bucket',
  per_series: 'each series of a bundle by its own method, listed in `series`',
  total_variance_interpolation:
    'constant-maturity values interpolated linearly in total variance σ²T between the bracketing expiries (flat before the front expiry)',
  funding_open_close_mean: "funding rate: each venue's first, last and mean observation in the bucket, averaged across venues",
} as const;

/** The routes that emit meta.extra.aggregation. */
export const AGGREGATION_ROUTES = [
  '/v2/options/pcr',
  '/v2/options/premium-tide',
  '/v2/options/iv/term-structure',
  '/v2/tape/strike-heat',
  '/v2/market/candles',
  '/v2/market/open-interest',
  '/v2/market/bundle',
] as const;

export type AggregationVenues = keyof typeof AGGREGATION_VENUES;
export type AggregationMethod = keyof typeof AGGREGATION_METHODS;

export interface Aggregation {
  readonly venues: AggregationVenues;
  /** Width of the bucket each point stands for (`5m`, `1h`, `1d`, ...); null when the answer is not bucketed in time. */
  readonly interval: string | null;
  readonly method: AggregationMethod;
  /** Method per series (method `per_series` only). */
  readonly series?: Readonly<Record<string, AggregationMethod>>;
}

export const aggregation = (
  venues: AggregationVenues,
  interval: string | null,
  method: AggregationMethod,
  series?: Readonly<Record<string, AggregationMethod>>,
): Aggregation => ({ venues, interval, method, ...(series !== undefined ? { series } : {}) });
