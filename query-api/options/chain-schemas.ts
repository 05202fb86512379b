/** Query and response schemas of /v2/options/chain, /v2/options/venue-book and /v2/options/oi/by-expiry (strict responses). */
import { z } from 'zod';
import { VENUE_BOOK_SORTS } from '#processors/analytics/venue-book.ts';
import { intParam, symbolParam } from '../params/param-schemas.ts';
import { parseCsv, parseExpiry } from '../params/query-params.ts';
import { asOfParam, exchangesParam } from '../gex/schemas.ts';

const EXPIRY_FORMAT = 'token like 27DEC24 or ISO date YYYY-MM-DD';

const expiryParam = z
  .string()
  .refine((s) => parseExpiry(s) !== null, { error: `expiry date: ${EXPIRY_FORMAT}` })
  .optional()
  .describe('one expiry (UTC date: 27DEC24 or 2024-12-27); omit for every listed expiry; 404 when not listed');

const expiriesParam = z
  .string()
  .refine((s) => s.length <= 1024 && parseCsv(s, false).length > 0 && parseCsv(s, false).every((x) => parseExpiry(x) !== null), {
    error: `CSV of expiry dates: ${EXPIRY_FORMAT}`,
  })
  .optional()
  .describe('CSV of expiries (27DEC24 or 2024-12-27), combined; 404 when one is not listed; not together with `expiry`');

/** A positive decimal number (plain digits, optional fraction). */
const positiveDecimal = (what: string, max: number) =>
  z
    .string()
    .refine((s) => /^\d{1,12}(\.\d{1,12})?$/.test(s) && Number(s) > 0 && Number(s) <= max, { error: `must be a number > 0 and <= ${max}` })
    .optional()
    .describe(what);

const typeParam = z.enum(['call', 'put'], { error: 'must be call or put' }).optional().describe('call or put; default both');
const strikeMin = positiveDecimal('lowest strike kept (USD, inclusive)', 1e12);
const strikeMax = positiveDecimal('highest strike kept (USD, inclusive)', 1e12);
const moneyness = positiveDecimal('keep contracts with |strike / forward − 1| <= moneyness (the contract forward; 0.1 = within ±10 %)', 10);

const includeParam = z
  .string()
  .refine((s) => s.length <= 256 && parseCsv(s).every((x) => x === 'exchange_breakdown'), { error: 'CSV of exchange_breakdown' })
  .optional()
  .describe('exchange_breakdown: the per-venue rows of every contract (omitted by default)');

const TRADE_COUNT =
  "trades of the contract in the 24 hours before the chain instant's UTC minute ([minute − 24 h, minute), as strike heat and flow by strike count prints; null when not read)";
const NOTIONAL_VOLUME =
  'premium paid in those trades, USD (Σ size × price in USD, on every symbol); not the underlying notional that premium tide reports as *_notional_usd';

export const CHAIN_LAYOUTS = ['rows', 'ladder'] as const;

export const chainQuery = z.object({
  symbol: symbolParam,
  exchanges: exchangesParam,
  expiry: expiryParam,
  expiries: expiriesParam,
  type: typeParam,
  strike_min: strikeMin,
  strike_max: strikeMax,
  moneyness,
  layout: z
    .enum(CHAIN_LAYOUTS, { error: 'must be rows or ladder' })
    .optional()
    .describe('rows (one per contract, default) or ladder (one per expiry and strike, call and put side by side)'),
  include: includeParam,
  as_of: asOfParam,
});

export const venueBookQuery = z.object({
  symbol: symbolParam,
  exchanges: exchangesParam,
  expiry: expiryParam,
  type: typeParam,
  strike_min: strikeMin,
  strike_max: strikeMax,
  moneyness,
  min_venues: intParam(1, 10).optional().describe('only contracts listed on at least this many of the selected venues, 1-10, default 1'),
  sort: z
    .enum(VENUE_BOOK_SORTS, { error: `must be one of ${VENUE_BOOK_SORTS.join(', ')}` })
    .optional()
    .describe(
      'spread_bps (consolidated spread in bps of mark, tightest first: the default), spread_usd (tightest first), strike (expiry, strike, call before put); one-sided books last',
    ),
  limit: intParam(1, 5000).optional().describe('contracts returned, 1-5000, default 500'),
  as_of: asOfParam,
});

export const oiByExpiryQuery = z.object({
  symbol: symbolParam,
  exchanges: exchangesParam,
  include: includeParam,
  as_of: asOfParam,
});

const num = z.number();
const nnum = z.number().nullable();
const source = z.enum(['none', 'venue', 'computed', 'mixed']);
const venueGreekSource = z.enum(['none', 'venue', 'computed']);

const venueRow = z.strictObject({
  venue: z.string(),
  instrument: z.string(),
  forward: num,
  bid_usd: nnum,
  bid_size: nnum,
  ask_usd: nnum,
  ask_size: nnum,
  mark_usd: nnum,
  last_usd: nnum,
  mark_iv: nnum,
  bid_iv: nnum,
  ask_iv: nnum,
  open_interest: num,
  volume_24h: nnum,
  trade_count: nnum.describe(TRADE_COUNT),
  notional_volume: nnum.describe(NOTIONAL_VOLUME),
  delta: nnum,
  gamma: nnum,
  vega: nnum,
  theta: nnum,
  greeks_source: z.strictObject({ delta: venueGreekSource, gamma: venueGreekSource, vega: venueGreekSource, theta: venueGreekSource }),
});

export const chainContract = z.strictObject({
  expiry: z.string(),
  dte: num.describe('days to expiry from the chain instant'),
  strike: num,
  type: z.enum(['call', 'put']),
  forward: num.describe('USD, OI-weighted across venues'),
  bid_usd: nnum.describe('best bid across venues, USD per coin'),
  bid_size: nnum.describe('coins at the best bid'),
  bid_venue: z.string().nullable(),
  bid_iv: nnum.describe('bid IV published by the best-bid venue, fraction'),
  ask_usd: nnum,
  ask_size: nnum,
  ask_venue: z.string().nullable(),
  ask_iv: nnum,
  mark_usd: nnum.describe('OI-weighted venue marks, USD per coin'),
  mark_iv: nnum.describe('OI-weighted venue mark IVs, fraction'),
  open_interest: num.describe('coins, summed over venues'),
  open_interest_usd: num.describe('open_interest × spot'),
  volume_24h: nnum.describe('coins, summed over the venues that publish it'),
  trade_count: nnum.describe(`${TRADE_COUNT}; summed over venues`),
  notional_volume: nnum.describe(`${NOTIONAL_VOLUME}; summed over venues`),
  delta: nnum,
  gamma: nnum,
  vega: nnum,
  theta: nnum,
  greeks_source: z.strictObject({ delta: source, gamma: source, vega: source, theta: source }),
  venues: z.array(z.string()),
  exchange_breakdown: z.array(venueRow).optional(),
});

export const chainData = z.strictObject({
  symbol: z.string(),
  spot: num,
  layout: z.enum(CHAIN_LAYOUTS),
  expiries: z.array(z.string()).describe('expiries of the returned contracts'),
  rows: z.array(chainContract).optional().describe('layout=rows'),
  ladder: z
    .array(z.strictObject({ expiry: z.string(), dte: num, strike: num, call: chainContract.nullable(), put: chainContract.nullable() }))
    .optional()
    .describe('layout=ladder'),
});

const side = z.strictObject({ venue: z.string(), price_usd: num, size: nnum }).nullable();

export const venueBookData = z.strictObject({
  symbol: z.string(),
  spot: num,
  sort: z.enum(VENUE_BOOK_SORTS),
  total: num.describe('contracts matching the filters before `limit`'),
  rows: z.array(
    z.strictObject({
      expiry: z.string(),
      dte: num,
      strike: num,
      type: z.enum(['call', 'put']),
      mark_usd: nnum,
      best_bid: side,
      best_ask: side,
      spread_usd: nnum,
      spread_bps: nnum.describe('(best ask − best bid) / mark × 10,000; negative when venues cross'),
      crossed: z.boolean(),
      venues: z.array(
        z.strictObject({
          venue: z.string(),
          instrument: z.string(),
          bid_usd: nnum,
          bid_size: nnum,
          ask_usd: nnum,
          ask_size: nnum,
          mark_usd: nnum,
          spread_usd: nnum,
          spread_bps: nnum,
        }),
      ),
    }),
  ),
});

const oiFigures = {
  call_oi: num,
  put_oi: num,
  total_oi: num,
  call_oi_usd: num,
  put_oi_usd: num,
  total_oi_usd: num,
  put_call_ratio: nnum,
};

export const oiByExpiryData = z.strictObject({
  symbol: z.string(),
  spot: num,
  expiries: z.array(
    z.strictObject({
      expiry: z.string(),
      dte: num,
      ...oiFigures,
      max_pain: z.strictObject({ strike: num, value: num }).nullable(),
      exchange_breakdown: z.array(z.strictObject({ venue: z.string(), ...oiFigures })).optional(),
    }),
  ),
  totals: z.strictObject(oiFigures),
});
