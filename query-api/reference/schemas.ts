import { z } from 'zod';
import { intParam } from '../params/param-schemas.ts';
import { COT_ASSET_CLASSES } from '#processors/analytics/cot-markets.ts';
import { COT_SPANS } from '#processors/analytics/cot-stats.ts';
import { COT_SORTS } from '#processors/analytics/cot-rows.ts';
import { ETF_ASSETS, ETF_REGIONS } from '#ingest/reference/targets.ts';

/** Query and response schemas of /v2/etf/flows, /v2/cot/*, /v2/filings/holders (strict objects, no transforms). */

const oneOf = <T extends readonly [string, ...string[]]>(values: T) => z.enum(values, { error: `must be one of ${values.join(', ')}` });

/** Tickers of /v2/filings/holders and the CUSIP each is keyed by (not the issuer name). */
export const HOLDER_CUSIPS = { MSTR: '594972408', COIN: '19260Q107', HOOD: '770700102', IBIT: '46438F101' } as const;
const TICKERS = Object.keys(HOLDER_CUSIPS) as [keyof typeof HOLDER_CUSIPS, ...(keyof typeof HOLDER_CUSIPS)[]];

export const etfQuery = z.object({
  asset: oneOf(ETF_ASSETS).optional().describe('underlying asset of the spot ETFs; default BTC'),
  region: oneOf(ETF_REGIONS).optional().describe('us (default) or hk (BTC only)'),
});

export const spanParam = oneOf(COT_SPANS)
  .optional()
  .describe('history span for the z-score (and the instrument history): 1y, 3y (default), 5y, all');

export const cotSummaryQuery = z.object({
  asset_class: oneOf([...COT_ASSET_CLASSES, 'all'])
    .optional()
    .describe('crypto (default), equity, rates, fx, commodity_energy, commodity_metal, commodity_ag or all'),
  span: spanParam,
  sort: oneOf(COT_SORTS)
    .optional()
    .describe('extremity (default), wow_abs, divergence, net or percentile; larger first (processors/README.md)'),
  limit: intParam(1, 200).optional().describe('rows, 1-200, default 50'),
  extremes_only: oneOf(['true', 'false']).optional().describe('true: only markets whose smart or fast money is at an extreme'),
});

export const cotInstrumentQuery = z.object({
  id: z
    .string()
    .regex(/^[0-9A-Z+]{6}$/, { error: 'must be a CFTC contract market code (6 characters), see /v2/cot/markets' })
    .describe('market id from /v2/cot/markets (CFTC contract market code)'),
  span: spanParam,
});

export const holdersQuery = z.object({
  ticker: oneOf(TICKERS).describe('MSTR, COIN, HOOD or IBIT (keyed by CUSIP)'),
  limit: intParam(1, 100).optional().describe('holders, 1-100, default 20'),
});

const num = z.number();
const numOrNull = z.number().nullable();
const date = z.string().describe('YYYY-MM-DD');

export const etfData = z.strictObject({
  asset: z.string(),
  region: z.string(),
  unit: z.literal('usd_millions'),
  funds: z.array(z.string()),
  days: z.array(
    z.strictObject({
      date,
      flows: z.record(z.string(), num).describe('net creations − redemptions per fund'),
      total: num,
      cumulative: num,
    }),
  ),
  cumulative_by_fund: z.record(z.string(), num),
  cumulative_total: num,
});

const category = z.strictObject({
  category: z.string(),
  role: z.enum(['smart', 'fast']).nullable(),
  long: numOrNull,
  short: numOrNull,
  net: numOrNull,
  change: numOrNull,
  net_pct_oi: numOrNull,
  percentile_1y: numOrNull,
  percentile_3y: numOrNull,
  zscore: numOrNull,
  extreme_high: z.boolean(),
  extreme_low: z.boolean(),
});

const marketFields = {
  id: z.string(),
  name: z.string(),
  asset_class: z.string(),
  report: z.string(),
  variant: z.string(),
  smart: z.string(),
  fast: z.string(),
};

export const cotSummaryData = z.strictObject({
  asset_class: z.string(),
  span: z.string(),
  sort: z.string(),
  extremes_only: z.boolean(),
  rows: z.array(
    z.strictObject({
      ...marketFields,
      date,
      weeks: z.number().int(),
      open_interest: num,
      open_interest_change: numOrNull,
      categories: z.array(category),
      extremity: numOrNull,
      divergence: numOrNull,
      extreme: z.boolean(),
    }),
  ),
});

const marketEntry = z.strictObject({
  ...marketFields,
  categories: z.array(z.string()),
  first_date: date,
  latest_date: date,
  weeks: z.number().int(),
});

export const cotMarketsData = z.strictObject({ markets: z.array(marketEntry) });

export const cotInstrumentData = z.strictObject({
  ...marketEntry.shape,
  span: z.string(),
  history: z.array(z.strictObject({ date, open_interest: num, categories: z.array(category) })),
});

export const holdersData = z.strictObject({
  ticker: z.string(),
  cusip: z.string(),
  period_end: date.nullable(),
  prior_period_end: date.nullable(),
  holder_count: z.number().int(),
  holders: z.array(
    z.strictObject({
      cik: z.string(),
      name: z.string(),
      shares: num,
      value_usd: num.describe('whole US dollars'),
      share_change: numOrNull.describe('shares − shares the prior quarter; null when the manager did not report the position then'),
      period_end: date,
    }),
  ),
});
