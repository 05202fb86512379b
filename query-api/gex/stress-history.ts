import { z } from 'zod';
import { SYMBOLS } from '#schemas/events.ts';
import { STRESS_SHOCKS_PCT } from '#processors/analytics/stress.ts';
import type { MarketSymbol } from '#schemas/events.ts';
import { stressHistory, type StressPoint } from './stress-reads.ts';
import { snapshotTimeAtOrBefore } from './snapshot-point-reads.ts';
import { notFound } from '../envelope/errors.ts';
import { responses } from '../envelope/envelope-schemas.ts';
import { intParam, symbolParam } from '../params/param-schemas.ts';
import type { ApiInstance } from '../types.ts';
import { TAG, type GexContext } from './context.ts';
import { rendered, type Rendered } from './memo.ts';
import { venueFilter, type VenueFilter } from '../params/query-params.ts';
import { asOfMeta, resolveWindow, type ResolvedInstant } from './point-in-time.ts';
import { positioningMeta } from './positioning.ts';
import { gexMeta, sendRendered } from './respond.ts';
import { asOfParam, exchangesParam, positioningParam } from './schemas.ts';

const INTERVALS = { '30s': 30_000, '5m': 300_000, '15m': 900_000, '1h': 3_600_000 } as const;
type Interval = keyof typeof INTERVALS;
const HOUR_MS = 3_600_000;

export const stressHistoryQuery = z.object({
  symbol: symbolParam,
  exchanges: exchangesParam,
  positioning: positioningParam,
  hours: intParam(1, 168).optional().describe('lookback window in hours ending at the latest snapshot or at `as_of`, 1 to 168, default 24'),
  interval: z
    .enum(['30s', '5m', '15m', '1h'], { error: 'must be 30s, 5m, 15m or 1h' })
    .optional()
    .describe('one point per bucket (the newest snapshot in it): 30s (every snapshot), 5m (default), 15m, 1h'),
  as_of: asOfParam,
});

const num = z.number();
const model = z.enum(['flow', 'std']);

export const stressHistoryData = z.strictObject({
  symbol: z.enum(SYMBOLS),
  positioning: model.describe('model that ran at the last point'),
  unit: z.literal('usd_delta_per_1pct_move'),
  shocks_pct: z.array(num).describe('spot shocks in percent, the order of every point.gex'),
  interval: z.enum(['30s', '5m', '15m', '1h']),
  from: z.string(),
  to: z.string(),
  points: z.array(
    z.strictObject({
      ts: z.string().describe('snapshot instant'),
      spot: num,
      positioning: model,
      zero_gamma: num
        .nullable()
        .describe('re-priced zero-gamma level nearest spot (the levels hvl); null when the profile has no sign change within ±25%'),
      gex: z.array(num).describe('total dealer GEX (USD per 1%) re-priced at spot × (1 + shock), parallel to shocks_pct'),
    }),
  ),
});

const iso = (ms: number): string => new Date(ms).toISOString();

function payload(symbol: MarketSymbol, interval: Interval, from: number, to: number, points: readonly StressPoint[]) {
  return {
    symbol,
    positioning: points.at(-1)?.positioning ?? 'std',
    unit: 'usd_delta_per_1pct_move' as const,
    shocks_pct: [...STRESS_SHOCKS_PCT],
    interval,
    from: iso(from),
    to: iso(to),
    points: points.map((p) => ({ ts: iso(p.t), spot: p.spot, positioning: p.positioning, zero_gamma: p.zero_gamma, gex: [...p.gex] })),
  };
}

interface Answer {
  readonly points: readonly StressPoint[];
  readonly rendered: Rendered<ReturnType<typeof payload>>;
}

function cacheKey(model: string, filter: VenueFilter, hours: number, interval: Interval): string {
  return `stress|${model}|${filter.key}|${hours}|${interval}`;
}

/**
 * GET /v2/gex/stress-history: per snapshot over the lookback, total dealer GEX under spot shocks −20 %…+20 %
 * (5 % steps) and the zero-gamma level, from the per-snapshot stress rows stored at the tick (gex_stress).
 */
export async function stressHistoryRoute(app: ApiInstance, ctx: GexContext): Promise<void> {
  app.get('/v2/gex/stress-history', {
    schema: {
      tags: [TAG],
      summary: 'GEX stress history',
      description:
        'Per snapshot over the lookback (`hours`, one point per `interval`): total dealer GEX (USD per 1% move) re-priced with spot shocked by −20 % … +20 % in 5 % steps (sticky strike: IV and positions fixed) and the zero-gamma level, under the selected model; `exchanges` re-aggregates the chosen venues; `as_of` ends the window at that instant (never after).',
      querystring: stressHistoryQuery,
      response: responses(stressHistoryData, { auth: true }),
    },
    handler: async (request, reply) => {
      const q = request.query;
      const model = q.positioning ?? 'flow';
      const hours = q.hours ?? 24;
      const interval: Interval = q.interval ?? '5m';
      const filter = venueFilter(q.exchanges);
      const now = ctx.clock();
      const read = (from: number, to: number) =>
        stressHistory(ctx.store, { symbol: q.symbol, model, fromMs: from, toMs: to, bucketMs: INTERVALS[interval], venues: filter.venues });
      let answer: Answer;
      let history: ResolvedInstant['history'] | undefined;
      let asOf: { readonly requested: string; readonly to: number } | undefined;
      if (q.as_of === undefined) {
        const snap = ctx.cache.get(q.symbol);
        if (snap === null) throw notFound(`no GEX snapshot for ${q.symbol} yet`);
        const to = snap.meta.computed_at;
        const from = to - hours * HOUR_MS;
        answer = await ctx.memo.get(snap, cacheKey(model, filter, hours, interval), async () => {
          const points = await read(from, to);
          return { points, rendered: rendered(payload(q.symbol, interval, from, to, points)) };
        });
      } else {
        const w = resolveWindow(ctx, request, q.as_of, (to) => ({ from: to - hours * HOUR_MS, to }));
        const points = await read(w.served.from, w.served.to);
        if (points.length === 0 && (await snapshotTimeAtOrBefore(ctx.store, q.symbol, w.served.to)) === null) {
          throw notFound(`no GEX snapshot for ${q.symbol} at or before ${iso(w.served.to)}`);
        }
        answer = { points, rendered: rendered(payload(q.symbol, interval, w.served.from, w.served.to, points)) };
        history = w.history;
        asOf = { requested: w.requested ?? iso(w.served.to), to: w.served.to };
      }
      const last = answer.points.at(-1);
      const meta = gexMeta(now, {
        symbol: q.symbol,
        ...(last !== undefined ? { spotPrice: last.spot, computedAt: last.t } : {}),
        ...(filter.applied !== undefined ? { exchangesFiltered: filter.applied } : {}),
        extra: {
          positioning: positioningMeta(model, last?.positioning ?? 'std', q.symbol),
          ...(asOf !== undefined && last !== undefined ? { as_of: asOfMeta(asOf.requested, last.t, asOf.to) } : {}),
        },
        ...(history !== undefined ? { history } : {}),
      });
      return sendRendered(ctx, request, reply, answer.rendered, meta);
    },
  });
}
