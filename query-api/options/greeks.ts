import { greekExposures } from '#processors/analytics/greeks-data.ts';
import { greekSurfaces, surface3d } from '#processors/analytics/greek-surfaces.ts';
import { responses } from '../envelope/envelope-schemas.ts';
import type { ApiInstance, AppContext } from '../types.ts';
import { includeSet } from '../params/query-params.ts';
import { greekPath, greeksData, greeksQuery, surface3dData, surface3dQuery, surfacesData } from './greeks-schemas.ts';
import { ChainMemo, chainMeta, resolveChainInstant, selectChain } from './chain-source.ts';
import type { ResolvedChainInstant, Selection } from './chain-source.ts';
import type { DealerModel } from '#processors/analytics/types.ts';
import type { MarketSymbol } from '#schemas/events.ts';
import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Greek } from '#processors/analytics/greek-exposure.ts';
import type { GreekQuery } from '#processors/analytics/greeks-data.ts';

type GreeksQuery = z.infer<typeof greeksQuery>;

const TAG = 'options';
const INCLUDES = ['exchange_breakdown'] as const;
const COMMON =
  'Dealer exposures in USD from the snapshot chain (Black-76, r = 0, on each expiry forward; one unit per greek, see `unit`; signs are the dealer book: std = long calls / short puts, flow = measured inventory, same fallback as /v2/gex/levels). `exchanges` re-aggregates venues, `expiry` selects one (404 when not listed), `as_of` resolves to the newest snapshot at or before the instant (never after).';

/** The engine input of a by-strike or surfaces request: instant, venue/expiry selection, model, breakdown. */
function greekMeta(
  ctx: AppContext,
  symbol: MarketSymbol,
  at: ResolvedChainInstant,
  sel: Selection,
  requested: DealerModel | null,
  served: DealerModel | null,
): ReturnType<typeof chainMeta> {
  return chainMeta(ctx, symbol, at, sel, requested !== null && served !== null ? { requested, served } : null);
}

async function exposureInput(
  ctx: AppContext,
  memo: ChainMemo,
  request: FastifyRequest,
  q: GreeksQuery,
  greek: Greek,
): Promise<{ input: GreekQuery; inst: ResolvedChainInstant; sel: Selection }> {
  const inst = await resolveChainInstant(ctx, request, q.symbol, q.as_of, memo);
  const sel = await selectChain(ctx, memo, q, inst);
  const { chain } = sel.stored;
  const breakdown = includeSet(q.include, INCLUDES).includes('exchange_breakdown');
  return {
    input: { symbol: q.symbol, now: chain.now, spot: chain.spot, open: sel.open, greek, model: q.positioning ?? 'flow', breakdown },
    inst,
    sel,
  };
}

/**
 * GET /v2/options/greeks/{greek}, /v2/options/greeks/surfaces/{greek}, /v2/options/greeks/3d/surface:
 * processors/analytics greeks-data.ts and greek-surfaces.ts on the chain of the snapshot instant.
 */
export async function greeksRoutes(app: ApiInstance, ctx: AppContext): Promise<void> {
  const memo = new ChainMemo();

  app.get('/v2/options/greeks/:greek', {
    schema: {
      tags: [TAG],
      summary: 'Dealer greek exposure by strike and expiry',
      description: `${COMMON} \`include=exchange_breakdown\` adds per-venue nets parallel to by_strike / by_expiry.`,
      params: greekPath,
      querystring: greeksQuery,
      response: responses(greeksData, { auth: true }),
    },
    handler: async (request) => {
      const x = await exposureInput(ctx, memo, request, request.query, request.params.greek);
      const d = greekExposures(x.input);
      return ctx.respond.ok(request, d, greekMeta(ctx, x.input.symbol, x.inst, x.sel, x.input.model, d.positioning));
    },
  });

  app.get('/v2/options/greeks/surfaces/:greek', {
    schema: {
      tags: [TAG],
      summary: 'Dealer greek exposure curves per expiry',
      description: `Per expiry, the exposure curve over its listed strikes (call, put, net). ${COMMON} \`include=exchange_breakdown\` adds per-venue net curves.`,
      params: greekPath,
      querystring: greeksQuery,
      response: responses(surfacesData, { auth: true }),
    },
    handler: async (request) => {
      const x = await exposureInput(ctx, memo, request, request.query, request.params.greek);
      const d = greekSurfaces(x.input);
      return ctx.respond.ok(request, d, greekMeta(ctx, x.input.symbol, x.inst, x.sel, x.input.model, d.positioning));
    },
  });

  app.get('/v2/options/greeks/3d/surface', {
    schema: {
      tags: [TAG],
      summary: 'Strike × days-to-expiry grid of a greek exposure or of IV',
      description: `A grid ready for a 3-D plot: rows = expiries (dte), columns = strikes, cell = net dealer exposure of \`metric\` (USD) or the mean mark IV (\`metric=iv\`, fraction); null where nothing is listed. ${COMMON}`,
      querystring: surface3dQuery,
      response: responses(surface3dData, { auth: true }),
    },
    handler: async (request) => {
      const q = request.query;
      const model = q.positioning ?? 'flow';
      const metric = q.metric ?? 'gamma';
      const inst = await resolveChainInstant(ctx, request, q.symbol, q.as_of, memo);
      const sel = await selectChain(ctx, memo, q, inst);
      const { chain } = sel.stored;
      const d = surface3d({ symbol: q.symbol, now: chain.now, spot: chain.spot, open: sel.open, metric, model, breakdown: false });
      return ctx.respond.ok(request, d, greekMeta(ctx, q.symbol, inst, sel, d.positioning === null ? null : model, d.positioning));
    },
  });
}
