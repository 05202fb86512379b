/** Query and response schemas of /v2/tape and /v2/tape/recent (responses carry no transforms). */
import { z } from 'zod';
import { VENUES } from '#schemas/events.ts';
import { intParam, symbolParam } from '../params/param-schemas.ts';
import { isIsoInstant, parseCsv } from '../params/query-params.ts';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const isDate = (s: string): boolean => DATE.test(s) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s);
const csvOf =
  (pred: (s: string) => boolean) =>
  (s: string): boolean =>
    s.length <= 2048 && parseCsv(s).length > 0 && parseCsv(s).every(pred);
const venueSet = new Set<string>(VENUES);

export const DEFAULT_LIMIT = 100;
export const DEFAULT_WINDOW_MS = 24 * 3_600_000;

const instant = (what: string) =>
  z
    .string()
    .refine(isIsoInstant, { error: 'must be an ISO-8601 instant with a time zone, e.g. 2026-01-01T00:00:00Z' })
    .optional()
    .describe(what);

export const limitParam = intParam(1, 1000).optional().describe(`trades per page, 1-1000, default ${DEFAULT_LIMIT}`);

const venuesParam = z
  .string()
  .refine(
    csvOf((v) => venueSet.has(v)),
    { error: `CSV of ${VENUES.join(', ')}` },
  )
  .optional()
  .describe('CSV of venues; default all');
const minPremiumParam = z
  .string()
  .refine((s) => /^\d{1,15}(\.\d{1,9})?$/.test(s), { error: 'must be a number >= 0' })
  .optional()
  .describe('minimum premium per trade, USD; default 0');

export const tapeQuery = z.object({
  symbol: symbolParam,
  limit: limitParam,
  order: z.enum(['asc', 'desc'], { error: 'must be asc or desc' }).optional().describe('by trade time; default desc (newest first)'),
  cursor: z.string().max(2048).optional().describe('opaque: next_cursor of the previous page (same filters and order)'),
  from: instant('window start (inclusive); default `to` − 24 h'),
  to: instant('window end (inclusive); default now'),
  venues: venuesParam,
  expiry: z
    .string()
    .refine(csvOf(isDate), { error: 'CSV of expiry dates YYYY-MM-DD' })
    .optional()
    .describe('CSV of expiry dates YYYY-MM-DD (UTC day of the expiry)'),
  type: z.enum(['call', 'put'], { error: 'must be call or put' }).optional(),
  side: z.enum(['buy', 'sell'], { error: 'must be buy or sell' }).optional().describe('taker side as stamped by the venue'),
  min_premium_usd: minPremiumParam,
  block: z.enum(['only', 'exclude'], { error: 'must be only or exclude' }).optional().describe('block trades only, or none; default both'),
});

export const strikeHeatQuery = z.object({
  symbol: symbolParam.describe('BTCUSDT or ETHUSDT (others: 404)'),
  hours: intParam(1, 168).optional().describe('lookback in hours, 1-168, default 24'),
  min_premium_usd: minPremiumParam,
  limit: intParam(5, 200).optional().describe('strikes returned, 5-200, default 25'),
  venues: venuesParam,
});

export const strikeHeatData = z.object({
  symbol: z.string(),
  hours: z.number().int(),
  from: z.string(),
  to: z.string(),
  min_premium_usd: z.number(),
  strikes: z
    .array(
      z.object({
        strike: z.number(),
        buy_premium_usd: z.number(),
        sell_premium_usd: z.number(),
        net_premium_usd: z.number(),
        total_premium_usd: z.number(),
        trades: z.number().int(),
        buy_trades: z.number().int(),
        sell_trades: z.number().int(),
      }),
    )
    .describe('taker-bought and -sold premium per strike (USD), net = buy − sell, ranked by |net| descending'),
});

/** Venues flow-by-strike accepts (the spec's list). */
export const FLOW_VENUES = ['binance', 'bybit', 'delta', 'delta_india', 'deribit', 'derive', 'okx', 'thalex'] as const;
const flowVenueSet = new Set<string>(FLOW_VENUES);

export const flowByStrikeQuery = z.object({
  symbol: symbolParam.optional().describe('default BTCUSDT; SOLUSDT and HYPEUSDT: 404'),
  expiry: z
    .string()
    .refine(isDate, { error: 'must be a date YYYY-MM-DD' })
    .optional()
    .describe('one live expiry date YYYY-MM-DD; default all open contracts'),
  expiries: z
    .string()
    .refine(csvOf(isDate), { error: 'CSV of dates YYYY-MM-DD' })
    .optional()
    .describe('CSV of expiry dates, combined; takes precedence over expiry'),
  min_premium_usd: minPremiumParam,
  venues: z
    .string()
    .refine(
      csvOf((v) => flowVenueSet.has(v)),
      { error: `CSV of ${FLOW_VENUES.join(', ')}` },
    )
    .optional()
    .describe(`CSV of ${FLOW_VENUES.join(', ')}; default all`),
  include: z
    .string()
    .refine(
      csvOf((v) => v === 'by_venue'),
      { error: 'CSV of by_venue' },
    )
    .optional()
    .describe('by_venue'),
});

const quadrant = z.object({ size: z.number().describe('coins'), premium_usd: z.number(), trades: z.number().int() });
const disagreement = z.object({ strikes_compared: z.number().int(), strikes_disagreeing: z.number().int(), share: z.number().nullable() });

export const flowByStrikeData = z.object({
  symbol: z.string(),
  expiries: z.array(z.string()).describe('expiry dates applied; empty = every contract with expiry date >= today UTC'),
  min_premium_usd: z.number(),
  strikes: z.array(z.object({ strike: z.number(), call_buy: quadrant, call_sell: quadrant, put_buy: quadrant, put_sell: quadrant })),
  by_venue: z
    .array(
      z.array(z.object({ venue: z.string(), bought: z.number(), sold: z.number(), net_size: z.number().describe('sold − bought, coins') })),
    )
    .optional()
    .describe('with include=by_venue: parallel to strikes'),
  venue_disagreement: disagreement,
});

export const recentQuery = z.object({ symbol: symbolParam, limit: limitParam });

/** The tape row (query-api/tape/tape-row.ts), as /v2/tape* and the WebSocket tape channel serve it. */
export const tapeTrade = z.object({
  time: z.string().describe('trade time, ISO-8601'),
  venue: z.string(),
  symbol: z.string(),
  instrument: z.string(),
  expiry: z.string().describe('expiry instant, ISO-8601'),
  strike: z.number(),
  type: z.enum(['call', 'put']),
  side: z.enum(['buy', 'sell']).describe('taker side'),
  size: z.number().describe('coins of underlying'),
  price: z.number().describe("in the venue's quote currency (price_currency)"),
  price_currency: z.string(),
  price_usd: z.number().describe('USD per coin of underlying'),
  premium_usd: z.number().describe('price_usd × size'),
  iv: z.number().nullable().describe('trade IV, fraction'),
  index_price: z.number().nullable().describe('USD'),
  block: z.boolean(),
  trade_id: z.string().describe("the venue's trade id"),
});

export const tapeData = z.object({
  symbol: z.string(),
  order: z.string(),
  from: z.string(),
  to: z.string(),
  count: z.number().int(),
  trades: z.array(tapeTrade),
  next_cursor: z.string().nullable().describe('pass as `cursor` for the next page; null on the last page'),
});
