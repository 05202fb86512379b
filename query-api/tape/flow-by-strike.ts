import { FLOW_SYMBOLS } from '#processors/analytics/dealer.ts';
import { flowByStrike } from '#processors/analytics/flow-by-strike.ts';
import type { MarketSymbol } from '#schemas/events.ts';
import { notFound, validationError } from '../envelope/errors.ts';
import { responses } from '../envelope/envelope-schemas.ts';
import { readFlowCells } from './flow-read.ts';
import type { ApiInstance, AppContext } from '../types.ts';
import { parseCsv } from '../params/query-params.ts';
import { flowByStrikeData, flowByStrikeQuery } from './schemas.ts';
import { TAG } from './tape.ts';

/** Answers are cached about 90 s (spec), per distinct query. */
export const FLOW_CACHE_MS = 90_000;
const MAX_ENTRIES = 256;

const sortedSet = (csv: string | undefined): string[] => (csv === undefined ? [] : [...new Set(parseCsv(csv))].sort());

/** GET /v2/tape/flow-by-strike (BTCUSDT, ETHUSDT). */
export async function flowByStrikeRoute(app: ApiInstance, ctx: AppContext): Promise<void> {
  const cache = new Map<string, { readonly at: number; readonly value: Promise<ReturnType<typeof flowByStrike> & { venues: string[] }> }>();
  app.get('/v2/tape/flow-by-strike', {
    schema: {
      tags: [TAG],
      summary: 'Flow by strike',
      description:
        'Cumulative aggressor prints (venue-stamped taker side) on contracts whose expiry date is today UTC or later, per strike in four quadrants (call_buy, call_sell, put_buy, put_sell: coins, premium USD, trades); `include=by_venue` adds per-venue net_size = sold − bought parallel to `strikes`; `venue_disagreement` counts strikes traded by at least two venues whose net sizes have opposite signs. Cached about 90 s. BTCUSDT and ETHUSDT only.',
      querystring: flowByStrikeQuery,
      response: responses(flowByStrikeData, { auth: true }),
    },
    handler: async (request) => {
      const q = request.query;
      const symbol: MarketSymbol = q.symbol ?? 'BTCUSDT';
      if (!FLOW_SYMBOLS.includes(symbol)) throw notFound(`flow by strike is served for ${FLOW_SYMBOLS.join(' and ')} only`);
      const now = ctx.clock();
      const today = new Date(now).toISOString().slice(0, 10);
      const expiries = q.expiries !== undefined ? sortedSet(q.expiries) : q.expiry !== undefined ? [q.expiry] : [];
      const past = expiries.filter((d) => d < today);
      if (past.length > 0) {
        const name = q.expiries !== undefined ? 'expiries' : 'expiry';
        throw validationError([
          {
            name,
            location: 'query',
            message: `not a live expiry (before today ${today} UTC): ${past.join(', ')}`,
            received: q.expiries ?? q.expiry ?? '',
          },
        ]);
      }
      const minPremiumUsd = q.min_premium_usd === undefined ? 0 : Number(q.min_premium_usd);
      const venues = sortedSet(q.venues);
      const key = JSON.stringify([symbol, expiries, minPremiumUsd, venues]);
      let hit = cache.get(key);
      if (hit === undefined || now - hit.at >= FLOW_CACHE_MS || now < hit.at) {
        if (cache.size >= MAX_ENTRIES) cache.clear();
        const read = { nowMs: now, expiryDates: expiries, minPremiumUsd, venues };
        // From the live flow book in memory when it holds the symbol's live trades; the same cells as the store read.
        const held = ctx.liveFlow?.cells(symbol, read) ?? null;
        const value = (held !== null ? Promise.resolve(held) : readFlowCells(ctx.store, { symbol, ...read })).then((cells) => ({
          ...flowByStrike(cells),
          venues: [...new Set(cells.map((c) => c.venue))].sort(),
        }));
        value.catch(() => cache.delete(key));
        cache.set(key, (hit = { at: now, value }));
      }
      const r = await hit.value;
      const byVenue = sortedSet(q.include).includes('by_venue');
      const data = {
        symbol,
        expiries,
        min_premium_usd: minPremiumUsd,
        strikes: r.strikes,
        ...(byVenue ? { by_venue: r.by_venue } : {}),
        venue_disagreement: r.venue_disagreement,
      };
      return ctx.respond.ok(request, data, {
        symbol,
        computed_at: new Date(hit.at).toISOString(),
        freshness_seconds: (now - hit.at) / 1000,
        source: r.venues,
        ...(venues.length > 0 ? { exchanges_filtered: venues } : {}),
        extra: { venue_disagreement: r.venue_disagreement },
      });
    },
  });
}
