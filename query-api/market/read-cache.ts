import { Counter } from 'prom-client';
import type { Store } from '../../clickhouse/store.ts';
import { metricsRegistry, registeredMetric } from '../../ops/floor/metrics/registry.ts';
import { METRIC } from '../../ops/floor/metrics/names.ts';
import { TtlCache } from '../cache/ttl-cache.ts';
import { readBundle, type BundleResult } from './bundle.ts';
import type { Grid } from './grid.ts';
import { readCandles, readOpenInterest, type CANDLE_FIELDS, type OPEN_INTEREST_FIELDS, type SeriesData, type SeriesName, type TradeMarket } from './series.ts';

type Candles = SeriesData<(typeof CANDLE_FIELDS)[number]>;
type OpenInterest = SeriesData<(typeof OPEN_INTEREST_FIELDS)[number]>;

/**
 * The spec's server cache of computed routes ("about 30 s") for the market routes: a rolled-up window is kept
 * for `ttlMs` under its exact grid (symbol, interval, first and last bucket; market or series list), so a
 * repeated request within that time is served without re-reading a year of 1-minute states, and concurrent
 * identical requests share one read. Bounded by the number of cells held (points × columns), oldest first.
 * Never cached: a bundle with a failed series, and failures. ttlMs = 0 turns it off.
 */
export const MARKET_CACHE_MAX_CELLS = 4_000_000;

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

function cellsOf(s: SeriesData | null): number {
  if (s === null) return 0;
  let cells = 0;
  for (const col of Object.values(s.columns)) cells += col.length;
  return cells;
}

function bundleCells(b: BundleResult): number {
  let cells = 0;
  for (const s of b.series.values()) cells += cellsOf(s);
  return cells;
}

const gridKey = (g: Grid, symbol: string): string => `${symbol}|${g.interval}|${g.fromMs}|${g.toMs}`;

export class MarketReadCache {
  private readonly candleCache: TtlCache<Candles>;
  private readonly oiCache: TtlCache<OpenInterest>;
  private readonly bundleCache: TtlCache<BundleResult>;

  constructor(ttlMs: number, clock: () => number, maxCells = MARKET_CACHE_MAX_CELLS) {
    const counter = lookups();
    const onLookup = (route: Route) => (result: 'hit' | 'shared' | 'miss'): void => counter.inc({ route, result });
    // A third of the cells per route: a burst on one route cannot evict the others.
    const maxWeight = Math.floor(maxCells / 3);
    this.candleCache = new TtlCache<Candles>({ ttlMs, clock, maxWeight, weigh: cellsOf, onLookup: onLookup('candles') });
    this.oiCache = new TtlCache<OpenInterest>({ ttlMs, clock, maxWeight, weigh: cellsOf, onLookup: onLookup('open_interest') });
    this.bundleCache = new TtlCache<BundleResult>({
      ttlMs,
      clock,
      maxWeight,
      weigh: bundleCells,
      cacheable: (b) => Object.keys(b.errors).length === 0,
      onLookup: onLookup('bundle'),
    });
  }

  candles(store: Store, grid: Grid, symbol: string, market: TradeMarket): Promise<Candles> {
    return this.candleCache.get(`${market}|${gridKey(grid, symbol)}`, () => readCandles(store, grid, symbol, market));
  }

  openInterest(store: Store, grid: Grid, symbol: string): Promise<OpenInterest> {
    return this.oiCache.get(gridKey(grid, symbol), () => readOpenInterest(store, grid, symbol));
  }

  bundle(store: Store, grid: Grid, symbol: string, names: readonly SeriesName[]): Promise<BundleResult> {
    return this.bundleCache.get(`${names.join(',')}|${gridKey(grid, symbol)}`, () => readBundle(store, grid, symbol, names));
  }
}
