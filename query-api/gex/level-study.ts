import { z } from 'zod';
import { levelStudyOf, parseDuration, sampledTimes, STUDY_LEVELS } from '#processors/analytics/level-study.ts';
import { SYMBOLS } from '#schemas/events.ts';
import { validationError } from '../envelope/errors.ts';
import { responses } from '../envelope/envelope-schemas.ts';
import { clampWindow, historyMeta } from '../limits/history-clamp.ts';
import { intParam, symbolParam } from '../params/param-schemas.ts';
import { instantMs, isIsoInstant, venueFilter } from '../params/query-params.ts';
import type { ApiInstance } from '../types.ts';
import { TAG, type GexContext } from './context.ts';
import { studyColumns, withVenueLevels } from './level-study-reads.ts';
import { exchangesParam, positioningParam } from './schemas.ts';

const DAY_MS = 86_400_000;
const MIN_MS = 60_000;
const HORIZON = { min: 5 * MIN_MS, max: 7 * DAY_MS, text: '5m to 7d' } as const;
const STEP = { min: 5 * MIN_MS, max: DAY_MS, text: '5m to 1d' } as const;

const duration = (what: string, bounds: { readonly min: number; readonly max: number; readonly text: string }, example: string) =>
  z
    .string()
    .refine(
      (s) => {
        const ms = parseDuration(s);
        return ms !== null && ms >= bounds.min && ms <= bounds.max;
      },
      {
        error: `${what}: minutes, hours or days such as ${example}, ${bounds.text}`,
      },
    )
    .optional();

const instant = (name: string) =>
  z
    .string()
    .refine(isIsoInstant, { error: 'must be an ISO-8601 instant with a time zone, e.g. 2026-10-01T12:00:00Z' })
    .optional()
    .describe(name);

export const levelStudyQuery = z.object({
  symbol: symbolParam,
  exchanges: exchangesParam,
  positioning: positioningParam,
  from: instant('start of the study window (ISO-8601); with `to`, instead of `days`'),
  to: instant('end of the study window (ISO-8601, not in the future); default now'),
  days: intParam(1, 3660).optional().describe('window of the last N days ending at `to` (default 30) when `from` is not given'),
  horizon: duration('horizon', HORIZON, '4h').describe('H: how long after each instant price is followed; 30m to 7d, default 4h'),
  step: duration('step', STEP, '30m').describe('grid of sample instants (UTC epoch multiples); 5m to 1d, default 30m'),
});

const rate = z.number().nullable().describe('fraction; null without a denominator');
const counts = {
  touched: z.number().int(),
  held: z.number().int(),
  touch_rate: rate,
  hold_rate: rate,
};
const outcome = z.strictObject({
  instants: z.number().int().describe('sampled instants where the level was set and differed from spot'),
  ...counts,
  broke: z.number().int(),
  mean_distance: rate.describe('mean |S − L| / S'),
  placebo: z.strictObject(counts).describe('the mirror level 2·S − L under the same rules'),
  edge: z.number().nullable().describe('hold_rate − placebo.hold_rate'),
});
const regime = z.strictObject({ count: z.number().int(), mean_rv: z.number().nullable().describe('mean annualized realized volatility') });

export const levelStudyData = z.strictObject({
  symbol: z.enum(SYMBOLS),
  positioning: z.enum(['flow', 'std']).describe('model of the stored levels studied'),
  from: z.string(),
  to: z.string(),
  horizon_seconds: z.number(),
  step_seconds: z.number(),
  instants: z.number().int().describe('grid instants'),
  missing: z.number().int().describe('grid instants without a snapshot within 30 s before them, or with no snapshot on their path'),
  levels: z.strictObject(
    Object.fromEntries(STUDY_LEVELS.map((l) => [l, outcome])) as Record<(typeof STUDY_LEVELS)[number], typeof outcome>,
  ),
  regimes: z.strictObject({
    net_gex_positive: regime,
    net_gex_negative: regime,
    spot_above_hvl: regime,
    spot_below_hvl: regime,
  }),
});

/**
 * GET /v2/gex/level-study: the level study (processors/analytics/level-study.ts, definitions in its header and the
 * README) over the stored snapshots of a window: hold rates of hvl, call resistance and put support against their
 * mirror placebo, and realized volatility per gamma regime. `gex study levels --levels FILE` computes the same from
 * a file of as_of answers.
 */
export async function levelStudyRoute(app: ApiInstance, ctx: GexContext): Promise<void> {
  app.get('/v2/gex/level-study', {
    schema: {
      tags: [TAG],
      summary: 'Level study: did price respect the levels?',
      description:
        'From the stored 30 s snapshots of a window: on a grid of instants (`step`), whether spot touched each all-expiry level (hvl, call_resistance, put_support) within `horizon` and held on its side at the end, against a placebo mirror level (2·S − L) at the same distance on the other side (`edge` = hold rate − placebo hold rate), and the mean annualized realized volatility of the path per regime (net GEX > 0 / < 0, spot above / below hvl). `exchanges` re-aggregates the sampled snapshots as /v2/gex/levels?as_of does; bounded by the plan history window; cached about 30 s. `gex study levels --levels FILE` recomputes it from as_of answers. Definitions: README "Level study".',
      querystring: levelStudyQuery,
      response: responses(levelStudyData, { auth: true }),
    },
    handler: async (request, reply) => {
      const q = request.query;
      const now = ctx.clock();
      const model = q.positioning ?? 'flow';
      const horizonMs = parseDuration(q.horizon ?? '4h') as number;
      const stepMs = parseDuration(q.step ?? '30m') as number;
      const errors: { name: string; location: 'query'; message: string; received: string }[] = [];
      if (q.from !== undefined && q.days !== undefined)
        errors.push({ name: 'days', location: 'query', message: 'give either from (with to) or days', received: String(q.days) });
      if (q.to !== undefined && instantMs(q.to) > now)
        errors.push({
          name: 'to',
          location: 'query',
          message: `must not be in the future (now ${new Date(now).toISOString()})`,
          received: q.to,
        });
      // Without `to` the window ends at the last step boundary: an answer stays the same (and cacheable) for a step.
      const to = q.to !== undefined ? instantMs(q.to) : Math.floor(now / stepMs) * stepMs;
      const from = q.from !== undefined ? instantMs(q.from) : to - (q.days ?? 30) * DAY_MS;
      if (q.from !== undefined && from >= to)
        errors.push({ name: 'from', location: 'query', message: 'must be before to', received: q.from });
      if (errors.length > 0) throw validationError(errors);
      const policy = ctx.historyPolicy(request);
      const clamp = clampWindow({ from, to }, policy);
      const filter = venueFilter(q.exchanges);
      const served = clamp.served;
      const key = [q.symbol, model, filter.key, served.from, served.to, horizonMs, stepMs, policy.historyDays, policy.enforced];
      const { data, meta } = await ctx.routeCache.answer(reply, 'gex_level_study', key, async () => {
        const opts = { from: served.from, to: served.to, horizonMs, stepMs };
        // The snapshot sampled at the first instant may be up to 30 s before the window start.
        let columns = await studyColumns(ctx.store, q.symbol, model, served.from - 30_000, served.to, stepMs);
        if (filter.venues !== undefined) {
          columns = await withVenueLevels(ctx.store, q.symbol, model, columns, sampledTimes(columns.t, opts), filter.venues);
        }
        const history = historyMeta(clamp);
        return {
          data: { symbol: q.symbol, positioning: model, ...levelStudyOf(columns, opts) },
          meta: {
            symbol: q.symbol,
            ...(filter.applied !== undefined ? { exchanges_filtered: [...filter.applied] } : {}),
            history_depth_enforced: history.history_depth_enforced,
            ...(history.extra !== undefined ? { extra: history.extra } : {}),
          },
        };
      });
      return ctx.respond.ok(request, data, meta);
    },
  });
}
