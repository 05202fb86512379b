import { z } from 'zod';
import { pcrSeries } from '#processors/analytics/pcr.ts';
import { clampWindow, historyMeta } from '../limits/history-clamp.ts';
import { aggregation } from '../envelope/aggregation.ts';
import { responses } from '../envelope/envelope-schemas.ts';
import { intParam, symbolParam } from '../params/param-schemas.ts';
import { PCR_STEP_MS, readOiCells } from './oi-read.ts';
import type { ApiInstance, AppContext } from '../types.ts';
import { includeSet, parseCsv } from '../params/query-params.ts';

const INCLUDES = ['exchange_breakdown'] as const;

/** `meta.extra.aggregation` of the put/call ratio (vocabulary: envelope/aggregation.ts, /v2/meta). */
export const PCR_AGGREGATION = {
  intraday: aggregation('sum', '5m', 'last'),
  daily: aggregation('sum', '1d', 'last_point_per_utc_day'),
} as const;

const query = z.object({
  symbol: symbolParam,
  granularity: z
    .enum(['intraday', 'daily'], { error: 'must be intraday or daily' })
    .optional()
    .describe('intraday (default): 5-minute points; daily: the last point of each UTC day'),
  days: intParam(1, 365).optional().describe('1-365, default 30'),
  include: z
    .string()
    .refine((s) => s.length <= 256 && parseCsv(s).every((x) => (INCLUDES as readonly string[]).includes(x)), {
      error: 'CSV of exchange_breakdown',
    })
    .optional(),
});

const data = z.object({
  symbol: z.string(),
  granularity: z.string(),
  days: z.number().int(),
  points: z.array(
    z.object({
      t: z.string().describe('point instant (end of its 5-minute bucket), ISO-8601'),
      ratio: z.number().nullable().describe('Σ put OI / Σ call OI; null without call OI'),
      call_oi: z.number().describe('coins'),
      put_oi: z.number().describe('coins'),
      exchange_breakdown: z
        .array(z.object({ venue: z.string(), call_oi: z.number(), put_oi: z.number() }))
        .optional()
        .describe('per-venue call and put OI (coins) of the point; only with include=exchange_breakdown'),
    }),
  ),
});

/** GET /v2/options/pcr: open-interest-weighted put/call ratio series. */
export async function pcrRoute(app: ApiInstance, ctx: AppContext): Promise<void> {
  app.get('/v2/options/pcr', {
    schema: {
      tags: ['options'],
      summary: 'Put/call ratio',
      description:
        'Open-interest-weighted put/call ratio (Σ put OI / Σ call OI over open contracts, each contract at its last reported OI in the 5-minute bucket); above 1 means more put than call open interest. `daily` is a real daily series (the last 5-minute point of each UTC day), reported as `meta.extra.granularity` = `daily`; the intraday fallback of the contract (`intraday-fallback`) is never served (see /v2/changelog 2.14.0). `include=exchange_breakdown` adds per-venue call and put OI per point.',
      querystring: query,
      response: responses(data, { auth: true }),
    },
    handler: async (request, reply) => {
      const q = request.query;
      const now = ctx.clock();
      const days = q.days ?? 30;
      const granularity = q.granularity ?? 'intraday';
      const breakdown = includeSet(q.include, INCLUDES).includes('exchange_breakdown');
      const to = now - (now % PCR_STEP_MS);
      const policy = ctx.historyPolicy(request);
      const clamp = clampWindow({ from: to - days * 86_400_000, to }, policy);
      const from = clamp.served.from - (clamp.served.from % PCR_STEP_MS);
      const key = [q.symbol, granularity, days, breakdown, from, to, policy.historyDays, policy.enforced];
      const { data, meta } = await ctx.routeCache.answer(reply, 'options_pcr', key, async () => {
        const cells = await readOiCells(ctx.store, q.symbol, from, to);
        const points = pcrSeries(cells, { daily: granularity === 'daily', breakdown });
        const history = historyMeta(clamp);
        return {
          data: { symbol: q.symbol, granularity, days, points: points.map((p) => ({ ...p, t: new Date(p.t).toISOString() })) },
          meta: {
            symbol: q.symbol,
            source: [...new Set(cells.map((c) => c.venue))].sort(),
            history_depth_enforced: history.history_depth_enforced,
            extra: {
              ...(history.extra ?? {}),
              granularity,
              aggregation: granularity === 'daily' ? PCR_AGGREGATION.daily : PCR_AGGREGATION.intraday,
              points_available: points.length,
              points_returned: points.length,
            },
          },
        };
      });
      return ctx.respond.ok(request, data, meta);
    },
  });
}
