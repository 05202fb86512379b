import { z } from 'zod';
import { pcrSeries } from '#processors/analytics/pcr.ts';
import { clampWindow, historyMeta } from '../limits/history-clamp.ts';
import { responses } from '../envelope/envelope-schemas.ts';
import { intParam, symbolParam } from '../params/param-schemas.ts';
import { PCR_STEP_MS, readOiCells } from './oi-read.ts';
import type { ApiInstance, AppContext } from '../types.ts';
import { includeSet, parseCsv } from '../params/query-params.ts';

const INCLUDES = ['exchange_breakdown'] as const;

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
      exchanges: z.array(z.object({ venue: z.string(), call_oi: z.number(), put_oi: z.number() })).optional(),
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
        'Open-interest-weighted put/call ratio (Σ put OI / Σ call OI over open contracts, each contract at its last reported OI in the 5-minute bucket); above 1 means more put than call open interest. `daily` is a real daily series (the last point of each UTC day). `include=exchange_breakdown` adds per-venue call and put OI per point.',
      querystring: query,
      response: responses(data, { auth: true }),
    },
    handler: async (request) => {
      const q = request.query;
      const now = ctx.clock();
      const days = q.days ?? 30;
      const granularity = q.granularity ?? 'intraday';
      const to = now - (now % PCR_STEP_MS);
      const clamp = clampWindow({ from: to - days * 86_400_000, to }, ctx.historyPolicy(request));
      const from = clamp.served.from - (clamp.served.from % PCR_STEP_MS);
      const cells = await readOiCells(ctx.store, q.symbol, from, to);
      const points = pcrSeries(cells, {
        daily: granularity === 'daily',
        breakdown: includeSet(q.include, INCLUDES).includes('exchange_breakdown'),
      });
      const history = historyMeta(clamp);
      return ctx.respond.ok(
        request,
        { symbol: q.symbol, granularity, days, points: points.map((p) => ({ ...p, t: new Date(p.t).toISOString() })) },
        {
          symbol: q.symbol,
          source: [...new Set(cells.map((c) => c.venue))].sort(),
          history_depth_enforced: history.history_depth_enforced,
          extra: { ...(history.extra ?? {}), granularity, points_available: points.length, points_returned: points.length },
        },
      );
    },
  });
}
