import { GAMMA_FLOW_DEFAULT_WINDOW_MS, gammaFlowSeries, type GammaFlowSeries } from './readers.ts';
import { snapshotTimeAtOrBefore } from './snapshot-point-reads.ts';
import type { MarketSymbol } from '#schemas/events.ts';
import { notFound } from '../envelope/errors.ts';
import { responses } from '../envelope/envelope-schemas.ts';
import type { ApiInstance } from '../types.ts';
import { TAG, type GexContext } from './context.ts';
import { rendered, type Rendered } from './memo.ts';
import { asOfMeta, resolveWindow, type ResolvedInstant } from './point-in-time.ts';
import { positioningMeta } from './positioning.ts';
import { gexMeta, sendRendered } from './respond.ts';
import { gammaFlowData, gammaFlowQuery } from './schemas.ts';

const iso = (ms: number): string => new Date(ms).toISOString();

function payload(symbol: MarketSymbol, s: GammaFlowSeries) {
  return {
    symbol,
    positioning: s.positioning,
    from: iso(s.from),
    to: iso(s.to),
    points: s.points.map((p) => ({
      ts: iso(p.t),
      spot: p.spot,
      price_change_pct: p.pct_change,
      net_gex: p.net_gex,
      increment: p.increment,
      cumulative: p.cumulative,
      positioning: p.positioning,
    })),
  };
}

interface FlowAnswer {
  readonly series: GammaFlowSeries;
  readonly rendered: Rendered<ReturnType<typeof payload>>;
}

/**
 * GET /v2/gex/gamma-flow: the 24 h series ending at the latest snapshot (memoized per snapshot) or at `as_of`
 * (window clamped to the plan's history window). Cumulative restarts at the window start.
 */
export async function gammaFlowRoute(app: ApiInstance, ctx: GexContext): Promise<void> {
  app.get('/v2/gex/gamma-flow', {
    schema: {
      tags: [TAG],
      summary: 'Gamma flow',
      description:
        'Per snapshot over the 24 h ending at the latest snapshot (or at `as_of`): spot change in percent vs the previous snapshot times net GEX under the selected model, and the cumulative sum of these increments from the window start.',
      querystring: gammaFlowQuery,
      response: responses(gammaFlowData, { auth: true }),
    },
    handler: async (request, reply) => {
      const q = request.query;
      const model = q.positioning ?? 'flow';
      const now = ctx.clock();
      let answer: FlowAnswer;
      let history: ResolvedInstant['history'] | undefined;
      let asOf: { readonly requested: string; readonly to: number } | undefined;
      if (q.as_of === undefined) {
        const snap = ctx.cache.get(q.symbol);
        if (snap === null) throw notFound(`no GEX snapshot for ${q.symbol} yet`);
        const to = snap.meta.computed_at;
        answer = await ctx.memo.get(snap, `gamma-flow|${model}`, async () => {
          const series = await gammaFlowSeries(ctx.store, {
            symbol: q.symbol,
            model,
            fromMs: to - GAMMA_FLOW_DEFAULT_WINDOW_MS,
            toMs: to,
            nowMs: to,
          });
          return { series, rendered: rendered(payload(q.symbol, series)) };
        });
      } else {
        const w = resolveWindow(ctx, request, q.as_of, (to) => ({ from: to - GAMMA_FLOW_DEFAULT_WINDOW_MS, to }));
        const series = await gammaFlowSeries(ctx.store, { symbol: q.symbol, model, fromMs: w.served.from, toMs: w.served.to, nowMs: now });
        if (series.points.length === 0 && (await snapshotTimeAtOrBefore(ctx.store, q.symbol, w.served.to)) === null) {
          throw notFound(`no GEX snapshot for ${q.symbol} at or before ${iso(w.served.to)}`);
        }
        answer = { series, rendered: rendered(payload(q.symbol, series)) };
        history = w.history;
        asOf = { requested: w.requested ?? iso(w.served.to), to: w.served.to };
      }
      const last = answer.series.points.at(-1);
      const meta = gexMeta(now, {
        symbol: q.symbol,
        ...(last !== undefined ? { spotPrice: last.spot, computedAt: last.t } : {}),
        extra: {
          positioning: positioningMeta(model, answer.series.positioning, q.symbol),
          ...(asOf !== undefined && last !== undefined ? { as_of: asOfMeta(asOf.requested, last.t, asOf.to) } : {}),
        },
        ...(history !== undefined ? { history } : {}),
      });
      return sendRendered(ctx, request, reply, answer.rendered, meta);
    },
  });
}
