import { z } from 'zod';
import { SYMBOLS, VENUES } from '#schemas/events.ts';
import { symbolParam } from '../params/param-schemas.ts';
import { isIsoInstant, parseCsv, parseExpiry } from '../params/query-params.ts';
import { LEVELS_INCLUDES, MULTI_INCLUDES, MULTI_MAX_SYMBOLS } from './includes.ts';

/**
 * Query and response schemas of the GEX family. Responses carry no transforms and are strict objects: the
 * tests validate every response, so a field the engine adds without a schema change fails there.
 */

const csvOf = (allowed: readonly string[]) =>
  z.string().refine((s) => parseCsv(s).every((t) => allowed.includes(t)), { error: `comma-separated list of ${allowed.join(', ')}` });

export const exchangesParam = z
  .string()
  .max(1000)
  .optional()
  .describe(
    `venue filter, comma-separated (${VENUES.join(', ')}); re-aggregates from the per-venue breakdown; unknown names are ignored; no known name = every venue; a venue without contracts contributes zero`,
  );

export const positioningParam = z
  .enum(['flow', 'std'], { error: 'must be flow or std' })
  .optional()
  .describe('dealer positioning model: flow (default; falls back to std for SOLUSDT/HYPEUSDT or without measured inventory) or std');

export const asOfParam = z
  .string()
  .refine(isIsoInstant, { error: 'must be an ISO-8601 instant with a time zone, e.g. 2026-10-01T12:00:00Z' })
  .optional()
  .describe(
    'ISO-8601 instant; omit for the latest snapshot. Resolves to the newest snapshot at or before the instant (never after); snapshot and lag in meta.extra.as_of; bounded by the plan history window; a future instant is a 422',
  );

export const levelsQuery = z.object({
  symbol: symbolParam,
  exchanges: exchangesParam,
  include: csvOf(LEVELS_INCLUDES)
    .optional()
    .describe(`optional blocks, CSV of ${LEVELS_INCLUDES.join(', ')}; only requested blocks appear`),
  positioning: positioningParam,
  as_of: asOfParam,
});

export const gammaFlowQuery = z.object({ symbol: symbolParam, positioning: positioningParam, as_of: asOfParam });

export const multiLevelsQuery = z.object({
  symbols: z
    .string()
    .refine((s) => parseCsv(s, false).length >= 1, { error: 'at least one symbol' })
    .refine((s) => parseCsv(s, false).length <= MULTI_MAX_SYMBOLS, { error: `at most ${MULTI_MAX_SYMBOLS} symbols` })
    .describe(`CSV of symbols (${SYMBOLS.join(', ')}), at most ${MULTI_MAX_SYMBOLS}; unknown names are listed in invalid`),
  exchanges: exchangesParam,
  include: csvOf(MULTI_INCLUDES)
    .optional()
    .describe(`optional blocks, CSV of ${MULTI_INCLUDES.join(', ')}`),
  positioning: positioningParam,
});

export const maxPainQuery = z.object({
  symbol: symbolParam,
  exchanges: exchangesParam,
  expiry: z
    .string()
    .refine((s) => parseExpiry(s) !== null, { error: 'expiry date: token like 27DEC24 or ISO date YYYY-MM-DD' })
    .optional()
    .describe('one expiry (UTC date: 27DEC24 or 2024-12-27); omit for every open expiry; 404 when not listed'),
  as_of: asOfParam,
});

export const heatmapQuery = z.object({ symbol: symbolParam, exchanges: exchangesParam, positioning: positioningParam, as_of: asOfParam });

const num = z.number();
const price = num.nullable();
const sign = z.union([z.literal(-1), z.literal(0), z.literal(1)]).nullable();
const noFlip = z.enum(['positive_everywhere', 'negative_everywhere', 'no_gamma']);
const model = z.enum(['flow', 'std']);

const rankedStrike = z.strictObject({ strike: num, net_gex: num, call_gex: num, put_gex: num });

export const levelsBlocks = {
  all_expiry: z
    .strictObject({
      hvl: price.describe('zero-gamma level nearest spot (re-priced profile root)'),
      call_resistance: price,
      call_wall_2: price,
      call_wall_3: price,
      put_support: price,
      put_wall_2: price,
      put_wall_3: price,
      hvl_reason: noFlip.optional().describe('why hvl is null'),
      net_gex: num.describe('total net GEX at spot, USD per 1% move'),
      wall_signs: z.strictObject({
        call_resistance: sign,
        call_wall_2: sign,
        call_wall_3: sign,
        put_support: sign,
        put_wall_2: sign,
        put_wall_3: sign,
      }),
    })
    .describe('levels over every open expiry'),
  odte: z
    .strictObject({
      hvl: price,
      call_resistance: price,
      put_support: price,
      expiry: z.string().nullable().describe('ISO instant of the 0DTE expiry; null when none within 24 h'),
      reason: z.literal('no_expiry_within_24h').optional(),
      hvl_reason: noFlip.optional(),
      net_gex: num.nullable(),
      wall_signs: z.strictObject({ call_resistance: sign, put_support: sign }),
    })
    .describe('levels of the earliest expiry within 24 h'),
  positioning: model.describe('model that ran'),
  ranked: z.strictObject({ all_expiry_top_10: z.array(rankedStrike).readonly(), odte_top_10: z.array(rankedStrike).readonly() }).optional(),
  max_pain: z
    .strictObject({ strike: num, value: num.describe('payout at the strike, USD') })
    .nullable()
    .optional(),
  expected_move: z
    .strictObject({ upper_1sd: num, lower_1sd: num, upper_2sd: num, lower_2sd: num, atm_iv: num, horizon_hours: num })
    .nullable()
    .optional()
    .describe('24 h band around spot from the ATM IV term structure; null without a valid ATM IV'),
  gamma_flip_zones: z
    .array(z.strictObject({ lower: num, upper: num, level: num, direction: z.enum(['neg_to_pos', 'pos_to_neg']) }))
    .readonly()
    .optional(),
  spot: z.strictObject({ spot_price: num, perps_price: num.nullable() }).optional(),
  profile: z
    .strictObject({
      spot: z.array(num).readonly().describe('hypothetical spot prices: spot x (1 + x), x from -25% to +25% by 0.25% (201 points)'),
      net_gex: z
        .array(num)
        .readonly()
        .describe(
          'net GEX re-priced at each hypothetical spot (sticky strike), model that ran, USD per 1% move; hvl is its root nearest spot',
        ),
      odte_net_gex: z.array(num).readonly().nullable().describe('the same for the 0DTE expiry; null when none within 24 h'),
    })
    .optional()
    .describe('GEX profile against hypothetical spot'),
  by_strike: z
    .strictObject({
      strikes: z.array(num).readonly().describe('every strike of every open expiry, ascending'),
      call_gex: z.array(num).readonly().describe('call GEX per strike, model that ran, USD per 1% move'),
      put_gex: z.array(num).readonly(),
      net_gex: z.array(num).readonly().describe('call_gex + put_gex'),
      call_oi: z.array(num).readonly().describe('open interest, coins'),
      put_oi: z.array(num).readonly(),
    })
    .optional()
    .describe('GEX by strike over every open expiry (arrays parallel to strikes)'),
};

export const candle = z.strictObject({ datetime: z.string(), open: num, high: num, low: num, close: num, volume: num });

export const levelsData = z.strictObject({
  ...levelsBlocks,
  candles: z
    .array(candle)
    .readonly()
    .optional()
    .describe('1-minute candles (perpetual + spot trades, all venues) of the hours before the snapshot'),
});

export const gammaFlowData = z.strictObject({
  symbol: z.enum(SYMBOLS),
  positioning: model,
  from: z.string(),
  to: z.string(),
  points: z.array(
    z.strictObject({
      ts: z.string().describe('snapshot instant'),
      spot: num,
      price_change_pct: num.describe('spot change vs the previous snapshot, percent'),
      net_gex: num.describe('net GEX at spot of the model that ran, USD per 1%'),
      increment: num.describe('price_change_pct × net_gex'),
      cumulative: num.describe('running sum of increments from the window start'),
      positioning: model,
    }),
  ),
});

const multiEntry = z.strictObject({
  symbol: z.enum(SYMBOLS),
  computed_at: z.string(),
  freshness_seconds: num,
  spot_price: num,
  source: z.array(z.string()),
  levels: z.strictObject({
    all_expiry: levelsBlocks.all_expiry,
    odte: levelsBlocks.odte,
    positioning: levelsBlocks.positioning,
    ranked: levelsBlocks.ranked,
    max_pain: levelsBlocks.max_pain,
    expected_move: levelsBlocks.expected_move,
    gamma_flip_zones: levelsBlocks.gamma_flip_zones,
  }),
});

export const multiLevelsData = z.strictObject({
  entries: z.array(multiEntry).describe('one entry per served symbol, in request order'),
  served: z.array(z.string()),
  missing: z.array(z.string()).describe('valid symbols without a snapshot'),
  invalid: z.array(z.string()).describe('names that are not symbols'),
});

export const maxPainData = z.strictObject({
  symbol: z.enum(SYMBOLS),
  expiries: z.array(
    z.strictObject({
      expiry: z.string().describe('ISO instant of the expiry'),
      strike: price.describe('max-pain strike; null when the expiry has no open interest'),
      value: price.describe('payout at the strike, USD'),
    }),
  ),
});

export const heatmapData = z.strictObject({
  symbol: z.enum(SYMBOLS),
  positioning: model,
  strikes: z.array(num).describe('ascending'),
  expiries: z.array(z.string()).describe('ISO instants, ascending'),
  values: z.array(z.array(num)).describe('values[i][j] = net GEX (USD per 1%) of expiry i at strike j; 0 where nothing is listed'),
});
