import { Counter } from 'prom-client';
import type { Store } from '#clickhouse/store.ts';
import { metricsRegistry, registeredMetric } from '#platform/metrics/registry.ts';
import { METRIC } from '#platform/metrics/names.ts';
import { TtlCache } from '../cache/ttl-cache.ts';
import type { Grid } from './grid.ts';
import { MarketServing, type ServedBundle, type ServedSeries } from './serving.ts';
import type { SeriesName, TradeMarket } from './series.ts';

/**
 * The spec's server cache of computed routes ("about 30 s") for the market routes: a served window (its JSON and
 * meta summary, serving.ts) is kept for `ttlMs` under its exact grid (symbol, interval, first and last bucket;
 * market or series list), so a repeated request within that time is answered without even the serving path's
 * change check, and concurrent identical requests share one read. Separate from the serving structure (which
 * answers any window, revalidated per request). Bounded by the JSON characters held, oldest first. Never cached:
 * a bundle with a failed series, and failures. ttlMs = 0 turns it off.
 */
export const MARKET_CACHE_MAX_CHARS = 48_000_000;

const LOOKUPS = METRIC.apiMarketCacheLookups;
type Route = 'candles' | 'open_interest' | 'bundle';

function lookups(): Counter<'route' | 'result'> {
  return registeredMetric(
    LOOKUPS,
    () =>
      new Counter({
        name: LOOKUPS,
        help: 'Market route cache lookups by route and result (hit, shared = joined a read in flight, miss).',
        labelNames: ['route', 'result'] as const,
        registers: [metricsRegistry],
      }),
  );
}

function bundleChars(b: ServedBundle): number {
  let chars = 0;
  for (const s of b.series.values()) chars += s?.json.length ?? 0;
  return chars;
}

const gridKey = (g: Grid, symbol: string): string => `${symbol}|${g.interval}|${g.fromMs}|${g.toMs}`;

export class MarketReadCache {
  private readonly candleCache: TtlCache<ServedSeries>;
  private readonly oiCache: TtlCache<ServedSeries>;
  private readonly bundleCache: TtlCache<ServedBundle>;

  constructor(
    ttlMs: number,
    clock: () => number,
    private readonly serving: MarketServing = new MarketServing(),
    maxChars = MARKET_CACHE_MAX_CHARS,
  ) {
    const counter = lookups();
    const onLookup =
      (route: Route) =>
      (result: 'hit' | 'shared' | 'miss'): void =>
        counter.inc({ route, result });
    // A third per route: a burst on one route cannot evict the others.
    const maxWeight = Math.floor(maxChars / 3);
    const weigh = (s: ServedSeries): number => s.json.length;
    this.candleCache = new TtlCache<ServedSeries>({ ttlMs, clock, maxWeight, weigh, onLookup: onLookup('candles') });
    this.oiCache = new TtlCache<ServedSeries>({ ttlMs, clock, maxWeight, weigh, onLookup: onLookup('open_interest') });
    this.bundleCache = new TtlCache<ServedBundle>({
      ttlMs,
      clock,
      maxWeight,
      weigh: bundleChars,
      cacheable: (b) => Object.keys(b.errors).length === 0,
      onLookup: onLookup('bundle'),
    });
  }

  candles(store: Store, grid: Grid, symbol: string, market: TradeMarket): Promise<ServedSeries> {
    return this.candleCache.get(`${market}|${gridKey(grid, symbol)}`, () => this.serving.candles(store, grid, symbol, market));
  }

  openInterest(store: Store, grid: Grid, symbol: string): Promise<ServedSeries> {
    return this.oiCache.get(gridKey(grid, symbol), () => this.serving.openInterest(store, grid, symbol));
  }

  bundle(store: Store, grid: Grid, symbol: string, names: readonly SeriesName[]): Promise<ServedBundle> {
    return this.bundleCache.get(`${names.join(',')}|${gridKey(grid, symbol)}`, () => this.serving.bundle(store, grid, symbol, names));
  }
}
