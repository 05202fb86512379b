import { aggregation } from '../envelope/aggregation.ts';
import { z } from 'zod';
import { premiumTide, tideWindow } from '#processors/analytics/premium-tide.ts';
import { responses } from '../envelope/envelope-schemas.ts';
import { symbolParam } from '../params/param-schemas.ts';
import { readTideCells } from './tide-read.ts';
import type { ApiInstance, AppContext } from '../types.ts';

const MIN = 60_000;

const query = z.object({
  symbol: symbolParam,
  horizon: z
    .enum(['0dte', 'weekly'], { error: 'must be 0dte or weekly' })
    .optional()
    .describe(
      "0dte (default): today's session (since 00:00 UTC), contracts expiring within 24 h, 5-minute points; weekly: the last 3 days, contracts expiring within 7 days, hourly points",
    ),
});

const num = z.number();
const data = z.object({
  symbol: z.string(),
  horizon: z.string(),
  venue: z.string(),
  from: z.string(),
  to: z.string(),
  interval_minutes: z.number().int(),
  points: z
    .array(
      z.object({
        t: z.string().describe('bucket start, ISO-8601'),
        call_net_premium_usd: num,
        put_net_premium_usd: num,
        net_premium_usd: num,
        call_notional_usd: num,
        put_notional_usd: num,
        cum_call_net_premium_usd: num,
        cum_put_net_premium_usd: num,
        cum_net_premium_usd: num,
      }),
    )
    .describe(
      'net premium = taker buys − sells (USD); net = call net − put net; notional = buys + sells, USD of underlying; cum_* = running sums',
    ),
});

/** GET /v2/options/premium-tide: Deribit call and put premium flow of near-dated options as a time series. */
export async function premiumTideRoute(app: ApiInstance, ctx: AppContext): Promise<void> {
  app.get('/v2/options/premium-tide', {
    schema: {
      tags: ['options'],
      summary: 'Premium tide',
      description:
        'Net premium and notional volume of `deribit` option trades, split into call and put flow, per bucket with running sums (from the tape aggregate option_tape_1m).',
      querystring: query,
      response: responses(data, { auth: true }),
    },
    handler: async (request, reply) => {
      const q = request.query;
      const horizon = q.horizon ?? '0dte';
      const { data, meta } = await ctx.routeCache.answer(reply, 'options_premium_tide', [q.symbol, horizon], async () => {
        const now = ctx.clock();
        const w = tideWindow(horizon, now);
        const cells = await readTideCells(ctx.store, {
          symbol: q.symbol,
          fromMs: w.fromMs,
          toMs: now,
          expiryToMs: w.expiryToMs,
          stepMs: w.stepMs,
        });
        const points = premiumTide(cells, w.fromMs, now, w.stepMs).map((p) => ({ ...p, t: new Date(p.t).toISOString() }));
        const interval = `${w.stepMs / MIN}m`;
        return {
          data: {
            symbol: q.symbol,
            horizon,
            venue: 'deribit',
            from: new Date(w.fromMs).toISOString(),
            to: new Date(now).toISOString(),
            interval_minutes: w.stepMs / MIN,
            points,
          },
          meta: {
            symbol: q.symbol,
            source: ['deribit'],
            extra: { aggregation: aggregation('single', interval, 'sum_with_running_total') },
          },
        };
      });
      return ctx.respond.ok(request, data, meta);
    },
  });
}
