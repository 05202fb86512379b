import { Counter } from 'prom-client';
import type { FastifyReply } from 'fastify';
import { metricsRegistry, registeredMetric } from '#platform/metrics/registry.ts';
import { METRIC } from '#platform/metrics/names.ts';
import type { MetaFields } from '../envelope/envelope.ts';
import { TtlCache } from './ttl-cache.ts';

/**
 * The spec's server cache of computed routes ("about 30 s") for the routes that compute an answer from a store
 * read (put/call ratio, calibrated range, premium tide, strike heat, ETF flows, 13F holders): the `data` and the
 * route's meta fields are kept for `ttlMs` under the route name and every input that changes the answer (the
 * parsed query, the window actually read, the plan's history policy), so a 30 s-old answer is the worst case;
 * concurrent identical requests share one read. Bounded by the JSON characters held (oldest first); failures are
 * not cached. The per-request meta (timestamp, request_id, rate limit) is never cached. ttlMs = 0 turns it off.
 */
export const ROUTE_CACHE_MAX_CHARS = 32_000_000;

export interface RouteAnswer<T> {
  readonly data: T;
  readonly meta: MetaFields;
}

interface Held {
  readonly answer: RouteAnswer<unknown>;
  readonly at: number;
  readonly chars: number;
}

export type CachedRoute =
  'options_pcr' | 'options_range' | 'options_premium_tide' | 'tape_strike_heat' | 'etf_flows' | 'filings_holders' | 'gex_level_study';

/** The paths whose answers go through this cache (published in /v2/meta `server_cache`). */
export const ROUTE_CACHE_PATHS = [
  '/v2/options/pcr',
  '/v2/options/range',
  '/v2/options/premium-tide',
  '/v2/tape/strike-heat',
  '/v2/etf/flows',
  '/v2/filings/holders',
  '/v2/gex/level-study',
] as const;

const LOOKUPS = METRIC.apiRouteCacheLookups;

function lookups(): Counter<'route' | 'result'> {
  return registeredMetric(
    LOOKUPS,
    () =>
      new Counter({
        name: LOOKUPS,
        help: 'Computed-route response cache lookups by route and result (hit, shared = joined a read in flight, miss).',
        labelNames: ['route', 'result'] as const,
        registers: [metricsRegistry],
      }),
  );
}

export class RouteCache {
  private readonly entries: TtlCache<Held>;
  private readonly counter = lookups();

  constructor(
    readonly ttlMs: number,
    private readonly clock: () => number,
    maxChars = ROUTE_CACHE_MAX_CHARS,
  ) {
    this.entries = new TtlCache<Held>({
      ttlMs,
      clock,
      maxWeight: maxChars,
      weigh: (h) => h.chars,
    });
  }

  /**
   * The answer for (route, key): from memory when computed less than ttlMs ago, else from `load`. Sets the
   * `X-Cache` (HIT, or MISS for a computed or joined answer) and `Age` (seconds since computed) headers.
   */
  async answer<T>(
    reply: FastifyReply,
    route: CachedRoute,
    key: readonly unknown[],
    load: () => Promise<RouteAnswer<T>>,
  ): Promise<RouteAnswer<T>> {
    let result = 'miss' as 'hit' | 'shared' | 'miss';
    const held = await this.entries.get(
      `${route}|${JSON.stringify(key)}`,
      async () => {
        const answer = await load();
        return { answer, at: this.clock(), chars: JSON.stringify(answer.data).length };
      },
      (r) => (result = r),
    );
    this.counter.inc({ route, result });
    void reply.header('x-cache', result === 'hit' ? 'HIT' : 'MISS');
    void reply.header('age', String(Math.max(0, Math.floor((this.clock() - held.at) / 1000))));
    return held.answer as RouteAnswer<T>;
  }
}
