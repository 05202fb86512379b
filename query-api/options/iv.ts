/**
 * GET /v2/options/iv/smile and /v2/options/iv/term-structure: the stored consolidated chain of the instant
 * (chain-source.ts) through processors/analytics/smile.ts (rules in processors/README.md "IV smile and term
 * structure"); `gex smile --chain FILE` prints the same data for a chain file.
 */
import { aggregation } from '../envelope/aggregation.ts';
import { responses } from '../envelope/envelope-schemas.ts';
import type { ApiInstance, AppContext } from '../types.ts';
import { includeSet } from '../params/query-params.ts';
import { ChainMemo, chainMeta, resolveChainInstant, selectChain } from './chain-source.ts';
import { smileData, smileQuery, termStructureData, termStructureQuery } from './iv-schemas.ts';
import { smileView, termStructureView } from './iv-views.ts';

const TAG = 'options';

/** The constant-maturity points of the term structure (envelope/aggregation.ts). */
const TERM_AGGREGATION = aggregation('consolidated', null, 'total_variance_interpolation');

export async function ivRoutes(app: ApiInstance, ctx: AppContext): Promise<void> {
  const memo = new ChainMemo();

  app.get('/v2/options/iv/smile', {
    schema: {
      tags: [TAG],
      summary: 'IV smile per expiry',
      description:
        "Per expiry of the stored 30 s chain: IV against strike, log-moneyness ln(K/F) and Black-76 delta, one point per strike from its out-of-the-money option (put below the forward, call from it): OI-weighted mark IV across venues and the bid/ask IV of the venues holding the best bid/ask; ATM IV at K = F (linear in strike between the bracketing strikes), 25-delta call and put IV (linear in delta), risk reversal and butterfly. `include=venues` adds each venue's own curve; `expiry` selects one (404 when not listed); `exchanges` re-aggregates; `as_of`: newest chain at or before (never after).",
      querystring: smileQuery,
      response: responses(smileData, { auth: true }),
    },
    handler: async (request) => {
      const q = request.query;
      const at = await resolveChainInstant(ctx, request, q.symbol, q.as_of, memo);
      const sel = await selectChain(ctx, memo, q, at);
      const data = smileView(
        { symbol: q.symbol, t: at.t, spot: sel.stored.chain.spot, rows: sel.rows },
        includeSet(q.include, ['venues'] as const).includes('venues'),
      );
      return ctx.respond.ok(request, data, chainMeta(ctx, q.symbol, at, sel, null));
    },
  });

  app.get('/v2/options/iv/term-structure', {
    schema: {
      tags: [TAG],
      summary: 'ATM IV term structure and constant-maturity vol',
      description:
        "ATM IV of every listed expiry of the stored 30 s chain and constant-maturity ATM IV at 1, 7, 30, 60, 90 and 180 days, interpolated linearly in total variance σ²T between the bracketing expiries (the expected-move rule); shorter than the front expiry: the front's IV (`method` flat_front); beyond the last expiry: null. `exchanges` re-aggregates; `as_of`: newest chain at or before (never after).",
      querystring: termStructureQuery,
      response: responses(termStructureData, { auth: true }),
    },
    handler: async (request) => {
      const q = request.query;
      const at = await resolveChainInstant(ctx, request, q.symbol, q.as_of, memo);
      const sel = await selectChain(ctx, memo, q, at);
      const data = termStructureView({ symbol: q.symbol, t: at.t, spot: sel.stored.chain.spot, rows: sel.rows });
      return ctx.respond.ok(request, data, chainMeta(ctx, q.symbol, at, sel, null, { aggregation: TERM_AGGREGATION }));
    },
  });
}
