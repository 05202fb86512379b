/**
 * GET /v2/options/chain, /v2/options/venue-book, /v2/options/oi/by-expiry: the stored consolidated chain of the
 * instant (chain-source.ts) through the pure chain-quotes / venue-book / oi-by-expiry modules. Answers are
 * rendered once per (chain instant, normalized filter) and kept in a small memo; a stored instant never changes.
 */
import type { FastifyRequest } from 'fastify';
import { responses } from '../envelope/envelope-schemas.ts';
import type { ApiInstance, AppContext } from '../types.ts';
import { includeSet } from '../params/query-params.ts';
import { rendered } from '../gex/memo.ts';
import type { Rendered } from '../gex/memo.ts';
import { sendRendered } from '../gex/respond.ts';
import { ChainMemo, chainMeta, resolveChainInstant, selectChain } from './chain-source.ts';
import type { ResolvedChainInstant, Selection } from './chain-source.ts';
import { chainFilter, chainView, expiryDays, filterHash, oiByExpiryView, venueBookView } from './chain-views.ts';
import { chainData, chainQuery, oiByExpiryData, oiByExpiryQuery, venueBookData, venueBookQuery } from './chain-schemas.ts';
import type { z } from 'zod';
import { TtlCache } from '../cache/ttl-cache.ts';

const TAG = 'options';
const RENDER_MEMO = 64;
const DEFAULT_BOOK_LIMIT = 500;
const INCLUDES = ['exchange_breakdown'] as const;

/**
 * Rendered answers per (instant, route, normalized filter): at most RENDER_MEMO, none older than RENDER_AGE_MS
 * (oldest dropped first). The age bound keeps memory flat: a render of a BTC chain holds ~0.5 MB (data and JSON)
 * and a new instant comes every 30 s.
 */
const RENDER_AGE_MS = 120_000;

class RenderMemo {
  private readonly entries = new TtlCache<Rendered<unknown>>({ ttlMs: RENDER_AGE_MS, clock: Date.now, maxWeight: RENDER_MEMO });

  async get<T>(key: string, compute: () => T): Promise<Rendered<T>> {
    return (await this.entries.get(key, () => Promise.resolve(rendered(compute())))) as Rendered<T>;
  }
}

async function selection(
  ctx: AppContext,
  memo: ChainMemo,
  request: FastifyRequest,
  q: { symbol: z.infer<typeof chainQuery>['symbol']; exchanges?: string | undefined; as_of?: string | undefined },
): Promise<{ at: ResolvedChainInstant; sel: Selection }> {
  const at = await resolveChainInstant(ctx, request, q.symbol, q.as_of, memo);
  const sel = await selectChain(ctx, memo, { symbol: q.symbol, exchanges: q.exchanges }, at);
  return { at, sel };
}

export async function chainRoutes(app: ApiInstance, ctx: AppContext): Promise<void> {
  const memo = new ChainMemo();
  const renders = new RenderMemo();

  app.get('/v2/options/chain', {
    schema: {
      tags: [TAG],
      summary: 'Consolidated option chain',
      description:
        "One row per contract (expiry, strike, type) of the stored 30 s chain: the best bid and best ask across venues and the venue holding each (ties: larger size, then venue name) with that venue's bid/ask IV, OI-weighted mark price, mark IV, forward and greeks per coin (delta; gamma per USD; vega USD per vol point; theta USD per day; `greeks_source` says venue-published, Black-76 computed, mixed or none), open interest and 24 h volume summed over venues (coins); `trade_count` and `notional_volume` (USD premium paid, Σ size × price — not underlying notional) of the trades printed in the 24 hours before the chain instant's UTC minute, summed over venues. Filters: `exchanges`, `expiry` or `expiries` (404 when not listed), `type`, `strike_min`/`strike_max`, `moneyness`; `layout=ladder` puts call and put side by side per strike; `include=exchange_breakdown` adds every venue's row. `meta.extra.filter_hash` identifies the normalized filter set (for client caching). `as_of`: newest chain at or before (never after).",
      querystring: chainQuery,
      response: responses(chainData, { auth: true }),
    },
    handler: async (request, reply) => {
      const q = request.query;
      const { at, sel } = await selection(ctx, memo, request, q);
      const f = chainFilter(q, expiryDays(q, sel.stored.rows));
      const layout = q.layout ?? 'rows';
      const include = includeSet(q.include, INCLUDES);
      const hash = filterHash(q.symbol, sel.applied, f, layout, include);
      const breakdown = include.includes('exchange_breakdown');
      const t = at.t;
      const spot = sel.stored.chain.spot;
      const answer = await renders.get(`chain|${q.symbol}|${at.table}|${t}|${hash}`, () =>
        chainView({ symbol: q.symbol, t, spot, rows: sel.rows }, f, layout, breakdown),
      );
      return sendRendered(ctx, request, reply, answer, chainMeta(ctx, q.symbol, at, sel, null, { filter_hash: hash }));
    },
  });

  app.get('/v2/options/venue-book', {
    schema: {
      tags: [TAG],
      summary: 'Top of book on every venue per contract',
      description:
        "Per contract of the stored 30 s chain: each venue's best bid/ask (USD per coin, sizes in coins), its spread in USD and in bps of its own mark (of its mid without a mark), the best bid and best ask across venues and the consolidated spread (bps of the OI-weighted mark; negative and `crossed` when the venues' books cross). Sorted tightest first by `spread_bps` (default) or `spread_usd`, or by `strike`; one-sided books last. Filters as /v2/options/chain plus `min_venues`; `limit` (default 500). `as_of`: newest chain at or before (never after).",
      querystring: venueBookQuery,
      response: responses(venueBookData, { auth: true }),
    },
    handler: async (request, reply) => {
      const q = request.query;
      const { at, sel } = await selection(ctx, memo, request, q);
      const f = chainFilter(q, expiryDays(q, sel.stored.rows));
      const sort = q.sort ?? 'spread_bps';
      const limit = q.limit ?? DEFAULT_BOOK_LIMIT;
      const minVenues = q.min_venues ?? 1;
      const key = `book|${q.symbol}|${at.table}|${at.t}|${filterHash(q.symbol, sel.applied, f, sort, [])}|${minVenues}|${limit}`;
      const answer = await renders.get(key, () =>
        venueBookView({ symbol: q.symbol, t: at.t, spot: sel.stored.chain.spot, rows: sel.rows }, f, sort, minVenues, limit),
      );
      return sendRendered(ctx, request, reply, answer, chainMeta(ctx, q.symbol, at, sel, null));
    },
  });

  app.get('/v2/options/oi/by-expiry', {
    schema: {
      tags: [TAG],
      summary: 'Open interest by expiry',
      description:
        "Per expiry of the stored 30 s chain: call and put open interest (coins, summed over the selected venues), USD notional (coins × spot of the chain instant), put/call OI ratio (null without call OI) and the expiry's max pain (strike minimising the USD intrinsic payout, and that payout); totals over every expiry; `include=exchange_breakdown` adds the per-venue figures. `as_of`: newest chain at or before (never after).",
      querystring: oiByExpiryQuery,
      response: responses(oiByExpiryData, { auth: true }),
    },
    handler: async (request, reply) => {
      const q = request.query;
      const { at, sel } = await selection(ctx, memo, request, q);
      const breakdown = includeSet(q.include, INCLUDES).includes('exchange_breakdown');
      const answer = await renders.get(`oi|${q.symbol}|${at.table}|${at.t}|${sel.applied?.join(',') ?? '*'}|${breakdown}`, () =>
        oiByExpiryView({ symbol: q.symbol, t: at.t, spot: sel.stored.chain.spot, rows: sel.rows }, breakdown),
      );
      return sendRendered(ctx, request, reply, answer, chainMeta(ctx, q.symbol, at, sel, null));
    },
  });
}
