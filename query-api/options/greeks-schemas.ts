/** Query and response schemas of the greek-exposure routes (strict responses: the tests validate every one). */
import { z } from 'zod';
import { GREEKS, GREEK_UNITS } from '#processors/analytics/greek-exposure.ts';
import { VENUES } from '#schemas/events.ts';
import { symbolParam } from '../params/param-schemas.ts';
import { parseCsv, parseExpiry } from '../params/query-params.ts';
import { asOfParam, exchangesParam, positioningParam } from '../gex/schemas.ts';

const unitsText = GREEKS.map((g) => `${g}: ${GREEK_UNITS[g]}`).join('; ');

export const greekPath = z.object({
  greek: z.enum(GREEKS, { error: `must be one of ${GREEKS.join(', ')}` }).describe(`dealer greek exposure in USD (${unitsText})`),
});

const expiryParam = z
  .string()
  .refine((s) => parseExpiry(s) !== null, { error: 'expiry date: token like 27DEC24 or ISO date YYYY-MM-DD' })
  .optional()
  .describe('one expiry (UTC date: 27DEC24 or 2024-12-27); omit for every open expiry; 404 when not listed');

const includeParam = z
  .string()
  .refine((s) => s.length <= 256 && parseCsv(s).every((x) => x === 'exchange_breakdown'), { error: 'CSV of exchange_breakdown' })
  .optional()
  .describe('exchange_breakdown: per-venue nets (omitted by default)');

export const greeksQuery = z.object({
  symbol: symbolParam,
  exchanges: exchangesParam,
  positioning: positioningParam,
  expiry: expiryParam,
  include: includeParam,
  as_of: asOfParam,
});

export const SURFACE_METRICS = [...GREEKS, 'iv'] as const;

export const surface3dQuery = z.object({
  symbol: symbolParam,
  metric: z
    .enum(SURFACE_METRICS, { error: `must be one of ${SURFACE_METRICS.join(', ')}` })
    .optional()
    .describe('cell value: a greek exposure (net, USD) or iv (mean mark IV, fraction); default gamma'),
  exchanges: exchangesParam,
  positioning: positioningParam,
  expiry: expiryParam,
  as_of: asOfParam,
});

const num = z.number();
const model = z.enum(['flow', 'std']);
const greek = z.enum(GREEKS);
const venue = z.enum(VENUES);
const sides = { call: num, put: num, net: num };

export const greeksData = z.strictObject({
  symbol: z.string(),
  greek,
  unit: z.string().describe(unitsText),
  positioning: model,
  spot: num,
  total: num,
  call_total: num,
  put_total: num,
  by_strike: z.array(z.strictObject({ strike: num, ...sides })),
  by_expiry: z.array(z.strictObject({ expiry: z.string(), dte: num, ...sides })),
  exchange_breakdown: z
    .array(
      z.strictObject({
        venue,
        total: num,
        by_strike: z.array(num).describe('net, parallel to by_strike'),
        by_expiry: z.array(num).describe('net, parallel to by_expiry'),
      }),
    )
    .optional(),
  diagnostics: z.strictObject({ instruments_used: num, skipped_no_iv: num }),
});

export const surfacesData = z.strictObject({
  symbol: z.string(),
  greek,
  unit: z.string(),
  positioning: model,
  spot: num,
  expiries: z.array(
    z.strictObject({
      expiry: z.string(),
      dte: num,
      strikes: z.array(num),
      call: z.array(num),
      put: z.array(num),
      net: z.array(num),
      by_venue: z.array(z.strictObject({ venue, net: z.array(num) })).optional(),
    }),
  ),
});

export const surface3dData = z.strictObject({
  symbol: z.string(),
  metric: z.enum(SURFACE_METRICS),
  unit: z.string(),
  positioning: model.nullable().describe('model that ran; null for iv'),
  spot: num,
  strikes: z.array(num),
  expiries: z.array(z.string()),
  dte: z.array(num),
  values: z.array(z.array(num.nullable())).describe('values[i][j]: expiry i, strike j; null where nothing is listed'),
});
