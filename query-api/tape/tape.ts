import type { FastifyRequest } from 'fastify';
import type { MarketSymbol } from '#schemas/events.ts';
import { validationError } from '../envelope/errors.ts';
import { clampWindow, historyMeta } from '../limits/history-clamp.ts';
import { responses } from '../envelope/envelope-schemas.ts';
import { decodeCursor, type TapeOrder } from './cursor.ts';
import { readTape, type TapeFilter } from './read.ts';
import type { ApiInstance, AppContext } from '../types.ts';
import { instantMs, parseCsv } from '../params/query-params.ts';
import { DEFAULT_LIMIT, DEFAULT_WINDOW_MS, recentQuery, tapeData, tapeQuery } from './schemas.ts';
import type { z } from 'zod';

export const TAG = 'tape';

type TapeQuery = z.infer<typeof tapeQuery>;

const bad = (name: string, message: string, received: string) => validationError([{ name, location: 'query', message, received }]);

interface Served {
  readonly filter: TapeFilter;
  readonly history: ReturnType<typeof historyMeta>;
}

/** The validated query → the filter; window defaults and the plan's history clamp. */
function servedFilter(ctx: AppContext, request: FastifyRequest, q: TapeQuery): Served {
  const now = ctx.clock();
  const to = q.to === undefined ? now : instantMs(q.to);
  const from = q.from === undefined ? to - DEFAULT_WINDOW_MS : instantMs(q.from);
  if (from > to) throw bad('from', 'must not be after `to`', q.from ?? '');
  const clamp = clampWindow({ from, to }, ctx.historyPolicy(request));
  const filter: TapeFilter = {
    symbol: q.symbol,
    fromMs: clamp.served.from,
    toMs: clamp.served.to,
    venues: q.venues === undefined ? [] : [...new Set(parseCsv(q.venues))].sort(),
    expiryDates: q.expiry === undefined ? [] : [...new Set(parseCsv(q.expiry))].sort(),
    type: q.type ?? null,
    side: q.side ?? null,
    minPremiumUsd: q.min_premium_usd === undefined ? 0 : Number(q.min_premium_usd),
    block: q.block ?? null,
  };
  return { filter, history: historyMeta(clamp) };
}

async function page(ctx: AppContext, request: FastifyRequest, q: TapeQuery) {
  const order: TapeOrder = q.order ?? 'desc';
  const cursor = q.cursor === undefined ? null : decodeCursor(q.cursor);
  if (q.cursor !== undefined && cursor === null) throw bad('cursor', 'not a cursor issued by /v2/tape', q.cursor);
  if (cursor !== null && cursor.order !== order) throw bad('cursor', `issued for order=${cursor.order}`, q.cursor ?? '');
  const { filter, history } = servedFilter(ctx, request, q);
  const limit = q.limit ?? DEFAULT_LIMIT;
  // The newest pages from memory when the tape tail covers them; the same rows as the store read.
  const r = ctx.tapeTail?.page(filter, order, limit, cursor) ?? (await readTape(ctx.store, filter, order, limit, cursor));
  const data = {
    symbol: q.symbol,
    order,
    from: new Date(filter.fromMs).toISOString(),
    to: new Date(filter.toMs).toISOString(),
    count: r.trades.length,
    trades: r.trades,
    next_cursor: r.nextCursor,
  };
  const source = [...new Set(r.trades.map((t) => t.venue))].sort();
  return ctx.respond.ok(request, data, {
    symbol: q.symbol,
    source,
    ...(filter.venues.length > 0 ? { exchanges_filtered: [...filter.venues] } : {}),
    ...history,
  });
}

/** GET /v2/tape: option trades across venues, filtered, keyset-paginated. */
export async function tapeRoute(app: ApiInstance, ctx: AppContext): Promise<void> {
  app.get('/v2/tape', {
    schema: {
      tags: [TAG],
      summary: 'Option tape',
      description:
        'Option trades of a symbol across venues in a time window (default the last 24 h), newest first by default, with filters; `next_cursor` pages through the window without overlap or gaps (pass it back with the same filters and order). Redelivered trades are served once.',
      querystring: tapeQuery,
      response: responses(tapeData, { auth: true }),
    },
    handler: async (request) => page(ctx, request, request.query),
  });
}

/** GET /v2/tape/recent: the newest `limit` trades, the same rows as /v2/tape?limit=N&order=desc. */
export async function recentRoute(app: ApiInstance, ctx: AppContext): Promise<void> {
  app.get('/v2/tape/recent', {
    schema: {
      tags: [TAG],
      summary: 'Recent option trades',
      description:
        'The newest option trades of a symbol across venues (last 24 h), newest first: the same rows as `/v2/tape?limit=N&order=desc`.',
      querystring: recentQuery,
      response: responses(tapeData, { auth: true }),
    },
    handler: async (request) =>
      page(ctx, request, { symbol: request.query.symbol as MarketSymbol, limit: request.query.limit, order: 'desc' }),
  });
}
