import { z } from 'zod';
import { FLOW_SYMBOLS } from '#processors/analytics/dealer.ts';
import { computeRange, HORIZONS, PAST_COLUMNS } from '#processors/analytics/range.ts';
import { CALIBRATION_DAYS, HOUR_MS } from '#processors/analytics/range-calibration.ts';
import { notFound } from '../envelope/errors.ts';
import { clampWindow, historyMeta } from '../limits/history-clamp.ts';
import { responses } from '../envelope/envelope-schemas.ts';
import { symbolParam } from '../params/param-schemas.ts';
import { readRangeSeries } from './range-read.ts';
import type { ApiInstance, AppContext } from '../types.ts';
import { includeSet, parseCsv } from '../params/query-params.ts';

const INCLUDES = ['past'] as const;
const DAY_MS = 86_400_000;
/** The longest past window (daily rows, six months). */
const PAST_DAYS = Math.max(...HORIZONS.map((h) => h.pastDays));

const query = z.object({
  symbol: symbolParam,
  include: z
    .string()
    .refine((s) => s.length <= 256 && parseCsv(s).every((x) => (INCLUDES as readonly string[]).includes(x)), { error: 'CSV of past' })
    .optional(),
});

// Fixed-size rows are arrays with minItems = maxItems (not JSON Schema tuples: `prefixItems` + `items: false`, which
// common OpenAPI validators and client generators reject); the wire format is the same.
const band = z.array(z.number()).length(2).describe('[lower, upper] USD');
const pastCell = z.union([z.string(), z.number(), z.boolean(), band, z.null()]);
const horizon = z.object({
  hours: z.number().int(),
  sigma: z.number().nullable().describe('DVOL/100 · sqrt(h / 8760): the unscaled 1-sd log move over the horizon'),
  bands: z.object({ '68': band, '90': band }).nullable().describe('spot · exp(∓factor · sigma); null without price or DVOL'),
  calibration: z.object({
    samples: z.number().int().describe('hourly samples of the last 30 days'),
    calibrated: z.boolean().describe('false below 24 samples: normal quantiles are used'),
    factor_68: z.number(),
    factor_90: z.number(),
  }),
  hit_rate: z
    .object({ '68': z.number().nullable(), '90': z.number().nullable(), rows: z.number().int() })
    .describe('out-of-sample share of the past rows whose end price stayed inside the band'),
  past_columns: z.array(z.string()).optional(),
  past: z
    .array(
      z
        .array(pastCell)
        .length(PAST_COLUMNS.length)
        .describe(
          'one row in past_columns order: start (ISO-8601), price_start (number|null), band_68 and band_90 ([lower, upper] USD|null), price_end (number|null), held_68 and held_90 (boolean|null)',
        ),
    )
    .optional(),
});
const data = z.object({
  symbol: z.string(),
  spot: z.number().nullable(),
  dvol: z.number().nullable().describe('latest Deribit DVOL, vol points'),
  calibration_days: z.number().int(),
  horizons: z.object({ '1h': horizon, '4h': horizon, '24h': horizon }),
});

/** GET /v2/options/range (BTCUSDT, ETHUSDT): DVOL bands rescaled on the last 30 days of hourly moves. */
export async function rangeRoute(app: ApiInstance, ctx: AppContext): Promise<void> {
  app.get('/v2/options/range', {
    schema: {
      tags: ['options'],
      summary: 'Calibrated range',
      description: `Bands at 68 % and 90 % for 1h, 4h and 24h around spot from Deribit DVOL scaled by sqrt(h / year) and rescaled per horizon and level by the empirical quantile of |log return| / (DVOL · sqrt(h / year)) over the last ${CALIBRATION_DAYS} days of hourly moves; \`hit_rate\` is the out-of-sample record of the past rows (each calibrated only on data before its start). \`include=past\` adds \`past_columns\` (${PAST_COLUMNS.join(', ')}) and rows: hourly for a week, 4-hourly for a month, daily from 00:00 UTC for six months, within the plan's history window, tiling the timeline; the latest row has null end price and held flags. BTCUSDT and ETHUSDT only.`,
      querystring: query,
      response: responses(data, { auth: true }),
    },
    handler: async (request, reply) => {
      const q = request.query;
      if (!FLOW_SYMBOLS.includes(q.symbol))
        throw notFound(`the calibrated range is served for ${FLOW_SYMBOLS.join(' and ')} only (Deribit DVOL)`);
      const includePast = includeSet(q.include, INCLUDES).includes('past');
      const policy = ctx.historyPolicy(request);
      const key = [q.symbol, includePast, policy.historyDays, policy.enforced];
      const { data, meta } = await ctx.routeCache.answer(reply, 'options_range', key, async () => {
        const now = ctx.clock();
        const clamp = clampWindow({ from: now - PAST_DAYS * DAY_MS, to: now }, { ...policy, now });
        const historyFloor = clamp.served.from > now - PAST_DAYS * DAY_MS ? clamp.served.from : null;
        const series = await readRangeSeries(ctx.store, q.symbol, now - (PAST_DAYS + CALIBRATION_DAYS + 1) * DAY_MS, now + HOUR_MS);
        const r = computeRange({ now, ...series, historyFloor, includePast });
        const history = historyMeta(clamp);
        return {
          data: { symbol: q.symbol, ...r },
          meta: {
            symbol: q.symbol,
            ...(series.spot !== null ? { spot_price: series.spot } : {}),
            source: series.dvol === null ? [] : ['deribit'],
            history_depth_enforced: history.history_depth_enforced,
            ...(history.extra ? { extra: history.extra } : {}),
          },
        };
      });
      return ctx.respond.ok(request, data, meta);
    },
  });
}
