import type { Store } from '../../clickhouse/store.ts';
import { indexOf, INTERVAL_MINUTES, type Grid } from './grid.ts';
import { CANDLES_SQL, FLOW_SQL, FUNDING_SQL, LIQUIDATIONS_SQL, OPEN_INTEREST_SQL } from './sql.ts';

/** The six market series of /v2/market/bundle, in response order. */
export const SERIES = ['candles', 'open_interest', 'funding', 'cvd_perp', 'cvd_spot', 'liquidations'] as const;
export type SeriesName = (typeof SERIES)[number];
export type TradeMarket = 'perp' | 'spot';

export type Column = (number | null)[];

/** One series on a grid: column arrays aligned with the grid's timestamps (null = bucket without data). */
export interface SeriesData<K extends string = string> {
  readonly columns: Readonly<Record<K, Column>>;
  /** Buckets with data. */
  readonly coverage: number;
  /** Venues contributing, sorted. */
  readonly sources: readonly string[];
  /** Start of the first bucket with data, ms; null when none. */
  readonly firstMs: number | null;
  /** Newest event time seen, ms; null when none. */
  readonly lastMs: number | null;
}

/**
 * The roll-up's rows folded into one row holding an array of tuples (t, last_ms, venues, ...fields): one JSON
 * line to parse instead of one per bucket (a 30,000-bucket answer parses several times faster). One tuple per
 * bucket keeps the fields of a bucket together whatever order groupArray sees them in, NULLs included.
 */
type Packed = readonly unknown[] | Readonly<Record<string, unknown>>;

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

const HEAD = ['t', 'last_ms', 'venues'] as const;

function packed(sql: string, fields: readonly string[]): string {
  // Field names are constants of this module (never request input).
  return `SELECT groupArray(tuple(${[...HEAD, ...fields].join(', ')})) AS rows FROM (${sql})`;
}

/** Field `k` (position `pos`) of a packed bucket: an array, or an object when ClickHouse names tuple elements. */
const at = (p: Packed, k: string, pos: number): unknown => (Array.isArray(p) ? p[pos] : (p as Readonly<Record<string, unknown>>)[k]);

/** Runs a roll-up statement and lays its rows on the grid, one column per entry of `fields`. */
async function onGrid<K extends string>(
  store: Store,
  grid: Grid,
  sql: string,
  params: Readonly<Record<string, unknown>>,
  fields: readonly K[],
): Promise<SeriesData<K>> {
  const [row] = await store.query<{ rows: readonly Packed[] }>(packed(sql, fields), {
    ...params,
    m: INTERVAL_MINUTES[grid.interval],
    from: Math.floor(grid.fromMs / 1000),
    to: Math.floor(grid.toMs / 1000),
  });
  const columns = Object.fromEntries(fields.map((f) => [f, new Array<number | null>(grid.points).fill(null)])) as Record<K, Column>;
  const venues = new Set<string>();
  let coverage = 0;
  let firstMs: number | null = null;
  let lastMs: number | null = null;
  for (const p of row?.rows ?? []) {
    const bucketMs = Number(at(p, 't', 0)) * 1000;
    const i = indexOf(grid, bucketMs);
    if (i < 0) continue;
    coverage++;
    firstMs = firstMs === null ? bucketMs : Math.min(firstMs, bucketMs);
    const l = Number(at(p, 'last_ms', 1));
    lastMs = lastMs === null ? l : Math.max(lastMs, l);
    const vs = at(p, 'venues', 2);
    if (Array.isArray(vs)) for (const v of vs) venues.add(String(v));
    fields.forEach((f, k) => {
      columns[f][i] = num(at(p, f, HEAD.length + k));
    });
  }
  return { columns, coverage, sources: [...venues].sort(), firstMs, lastMs };
}

export const CANDLE_FIELDS = [
  'open', 'high', 'low', 'close', 'volume', 'volume_usd', 'buy_volume', 'sell_volume', 'buy_volume_usd', 'sell_volume_usd', 'trades',
] as const;

export function readCandles(store: Store, grid: Grid, symbol: string, market: TradeMarket = 'perp'): Promise<SeriesData<(typeof CANDLE_FIELDS)[number]>> {
  return onGrid(store, grid, CANDLES_SQL, { symbol, market }, CANDLE_FIELDS);
}

export const OPEN_INTEREST_FIELDS = ['oi', 'oi_usd', 'venue_count'] as const;

export function readOpenInterest(store: Store, grid: Grid, symbol: string): Promise<SeriesData<(typeof OPEN_INTEREST_FIELDS)[number]>> {
  return onGrid(store, grid, OPEN_INTEREST_SQL, { symbol }, OPEN_INTEREST_FIELDS);
}

export const FUNDING_FIELDS = ['rate_open', 'rate_close', 'rate_mean', 'venue_count'] as const;

export function readFunding(store: Store, grid: Grid, symbol: string): Promise<SeriesData<(typeof FUNDING_FIELDS)[number]>> {
  return onGrid(store, grid, FUNDING_SQL, { symbol }, FUNDING_FIELDS);
}

export const LIQUIDATION_FIELDS = ['long_size', 'short_size', 'long_usd', 'short_usd', 'long_count', 'short_count'] as const;

export function readLiquidations(store: Store, grid: Grid, symbol: string): Promise<SeriesData<(typeof LIQUIDATION_FIELDS)[number]>> {
  return onGrid(store, grid, LIQUIDATIONS_SQL, { symbol }, LIQUIDATION_FIELDS);
}

export const CVD_FIELDS = ['delta', 'cvd', 'buy_volume', 'sell_volume'] as const;

/**
 * Cumulative volume delta in coins: delta = taker buy − taker sell volume of the bucket; cvd = running sum
 * of delta from the window start. A bucket without trades is null in both (the sum resumes at the next one).
 */
export async function readCvd(store: Store, grid: Grid, symbol: string, market: TradeMarket): Promise<SeriesData<(typeof CVD_FIELDS)[number]>> {
  const flow = await onGrid(store, grid, FLOW_SQL, { symbol, market }, ['buy_volume', 'sell_volume'] as const);
  const buy = flow.columns.buy_volume;
  const sell = flow.columns.sell_volume;
  const delta: Column = new Array<number | null>(grid.points).fill(null);
  const cvd: Column = new Array<number | null>(grid.points).fill(null);
  let running = 0;
  for (let i = 0; i < grid.points; i++) {
    const b = buy[i];
    const s = sell[i];
    if (b === null || b === undefined || s === null || s === undefined) continue;
    const d = b - s;
    running += d;
    delta[i] = d;
    cvd[i] = running;
  }
  return { ...flow, columns: { delta, cvd, buy_volume: buy, sell_volume: sell } };
}

/** The reader of each bundle series. */
export const SERIES_READERS: Readonly<Record<SeriesName, (store: Store, grid: Grid, symbol: string) => Promise<SeriesData>>> = {
  candles: (store, grid, symbol) => readCandles(store, grid, symbol, 'perp'),
  open_interest: readOpenInterest,
  funding: readFunding,
  cvd_perp: (store, grid, symbol) => readCvd(store, grid, symbol, 'perp'),
  cvd_spot: (store, grid, symbol) => readCvd(store, grid, symbol, 'spot'),
  liquidations: readLiquidations,
};
