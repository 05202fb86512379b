import { z } from 'zod';
import { intParam, symbolParam } from '../params/param-schemas.ts';
import { INTERVALS, MAX_HOURS, MAX_POINTS } from './grid.ts';
import { CANDLE_FIELDS, CVD_FIELDS, FUNDING_FIELDS, LIQUIDATION_FIELDS, OPEN_INTEREST_FIELDS, SERIES } from './series.ts';
import { parseSeries } from './bundle-series.ts';

/** Query and response schemas of /v2/market/* (responses carry no transforms). */

export const intervalParam = z.enum(INTERVALS, { error: `must be one of ${INTERVALS.join(', ')}` });

const common = {
  symbol: symbolParam,
  interval: intervalParam.optional().describe('bucket size; default 1h. 1d buckets start at 00:00 UTC'),
  hours: intParam(1, MAX_HOURS)
    .optional()
    .describe(
      `lookback window in hours (1-${MAX_HOURS}), default 24; candles (and a bundle with candles) at most ${MAX_POINTS.toLocaleString('en-US')} points (1m: 500 h, 5m: 2500 h, 15m: 7500 h); other series any window`,
    ),
};

export const candlesQuery = z.object({
  ...common,
  market: z
    .enum(['perp', 'spot'], { error: 'must be perp or spot' })
    .optional()
    .describe('perpetual (default) or spot cross-venue aggregate'),
});

export const marketQuery = z.object(common);

export const bundleQuery = z.object({
  ...common,
  series: z
    .string()
    .refine((s) => parseSeries(s) !== null, { error: `comma-separated list of ${SERIES.join(', ')}` })
    .optional()
    .describe(`CSV of ${SERIES.join(', ')}; default all six; one quota unit per series`),
});

const column = z.array(z.number().nullable());
const columns = <K extends string>(fields: readonly K[]) =>
  z.object(Object.fromEntries(fields.map((f) => [f, column])) as Record<K, typeof column>);

const axis = {
  symbol: z.string(),
  interval: z.string(),
  timestamps: z.array(z.number().int()).describe('bucket starts, epoch ms (UTC); every column is aligned with it'),
};

export const candleColumns = columns(CANDLE_FIELDS).describe(
  'OHLC in USD per coin (open = first trade, close = last); volumes in coins and USD; taker buy/sell split; null = no trade in the bucket',
);
export const openInterestColumns = columns(OPEN_INTEREST_FIELDS).describe(
  "sum over venues of each venue's last open interest in the bucket, coins and USD; venue_count = venues that published",
);
export const fundingColumns = columns(FUNDING_FIELDS).describe(
  "cross-venue mean of each venue's first (rate_open), last (rate_close) and mean funding rate in the bucket; per funding interval, fraction",
);
export const cvdColumns = columns(CVD_FIELDS).describe(
  'delta = taker buy − sell volume (coins) of the bucket; cvd = cumulative delta from the window start',
);
export const liquidationColumns = columns(LIQUIDATION_FIELDS).describe(
  'liquidated long / short positions: coins, USD (price × size), counts',
);

export const candlesData = z.object({ ...axis, market: z.string(), ...candleColumns.shape });
export const openInterestData = z.object({ ...axis, ...openInterestColumns.shape });

export const bundleData = z.object({
  ...axis,
  candles: candleColumns.nullable().optional(),
  open_interest: openInterestColumns.nullable().optional(),
  funding: fundingColumns.nullable().optional(),
  cvd_perp: cvdColumns.nullable().optional(),
  cvd_spot: cvdColumns.nullable().optional(),
  liquidations: liquidationColumns.nullable().optional(),
});
