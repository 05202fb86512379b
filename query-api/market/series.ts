import type { ColumnsResult, Store } from '#clickhouse/store.ts';
import { INTERVAL_MINUTES, type Grid } from './grid.ts';
import { layOnGrid, sameNames, type Column, type SeriesData } from './layout.ts';
import { CANDLES_SQL, FLOW_SQL, LIQUIDATIONS_SQL, PERP_STATS_SQL } from './sql.ts';
import { divides, tierFor, type Tier } from './tiers.ts';

export type { Column, SeriesData } from './layout.ts';

/** The six market series of /v2/market/bundle, in response order. */
export const SERIES = ['candles', 'open_interest', 'funding', 'cvd_perp', 'cvd_spot', 'liquidations'] as const;
export type SeriesName = (typeof SERIES)[number];
export type TradeMarket = 'perp' | 'spot';

export const CANDLE_FIELDS = [
  'open',
  'high',
  'low',
  'close',
  'volume',
  'volume_usd',
  'buy_volume',
  'sell_volume',
  'buy_volume_usd',
  'sell_volume_usd',
  'trades',
] as const;
export const OPEN_INTEREST_FIELDS = ['oi', 'oi_usd', 'venue_count'] as const;
export const FUNDING_FIELDS = ['rate_open', 'rate_close', 'rate_mean', 'venue_count'] as const;
export const LIQUIDATION_FIELDS = ['long_size', 'short_size', 'long_usd', 'short_usd', 'long_count', 'short_count'] as const;
export const CVD_FIELDS = ['delta', 'cvd', 'buy_volume', 'sell_volume'] as const;

type Data<F extends readonly string[]> = SeriesData<F[number]>;

/** The grid's range as the statements' {from}/{to} (Unix seconds). */
const range = (grid: Grid): { from: number; to: number } => ({ from: Math.floor(grid.fromMs / 1000), to: Math.floor(grid.toMs / 1000) });

/**
 * The state tables a read uses: `auto` = the coarsest whose bucket divides the grid's interval (tiers.ts), or one
 * tier forced (tests compare the tiers; a forced tier must divide the interval).
 */
export type TierChoice = Tier | 'auto';

function tierOf(grid: Grid, choice: TierChoice): Tier {
  const m = INTERVAL_MINUTES[grid.interval];
  if (choice === 'auto') return tierFor(m);
  if (!divides(choice, m)) throw new Error(`the ${choice} tables cannot serve interval ${grid.interval}`);
  return choice;
}

/** Runs one roll-up statement of sql.ts (in the chosen tier's version) on the grid. */
function rollUp(
  store: Store,
  grid: Grid,
  sql: Readonly<Record<Tier, string>>,
  params: Readonly<Record<string, string>>,
  tier: TierChoice,
): Promise<ColumnsResult> {
  return store.queryColumns(sql[tierOf(grid, tier)], { ...params, ...range(grid), m: INTERVAL_MINUTES[grid.interval] });
}

/** Trades and liquidations roll-ups: newest event and the venue bitmask of each bucket. */
const LAST_MS = { lastMs: 'last_ms', venueMask: 'venue_mask' } as const;

/** Trades of one market: with open/close (candles) or only the buy/sell flow (CVD). */
export function readTrades(
  store: Store,
  grid: Grid,
  symbol: string,
  market: TradeMarket,
  withCandles: boolean,
  tier: TierChoice = 'auto',
): Promise<ColumnsResult> {
  return rollUp(store, grid, withCandles ? CANDLES_SQL : FLOW_SQL, { symbol, market }, tier);
}

export function candlesOf(grid: Grid, trades: ColumnsResult): Data<typeof CANDLE_FIELDS> {
  return layOnGrid(grid, trades, { fields: sameNames(CANDLE_FIELDS), ...LAST_MS });
}

/**
 * Cumulative volume delta in coins: delta = taker buy − taker sell volume of the bucket; cvd = running sum
 * of delta from the window start. A bucket without trades is null in both (the sum resumes at the next one).
 */
export function cvdOf(grid: Grid, trades: ColumnsResult): Data<typeof CVD_FIELDS> {
  const flow = layOnGrid(grid, trades, { fields: sameNames(['buy_volume', 'sell_volume'] as const), ...LAST_MS });
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

export function readPerpStats(store: Store, grid: Grid, symbol: string, tier: TierChoice = 'auto'): Promise<ColumnsResult> {
  return rollUp(store, grid, PERP_STATS_SQL, { symbol }, tier);
}

export function openInterestOf(grid: Grid, stats: ColumnsResult): Data<typeof OPEN_INTEREST_FIELDS> {
  return layOnGrid(grid, stats, {
    fields: { oi: 'oi', oi_usd: 'oi_usd', venue_count: 'oi_venues' },
    lastMs: 'oi_last_ms',
    venueMask: 'oi_mask',
    present: 'oi_venues',
  });
}

export function fundingOf(grid: Grid, stats: ColumnsResult): Data<typeof FUNDING_FIELDS> {
  return layOnGrid(grid, stats, {
    fields: { rate_open: 'rate_open', rate_close: 'rate_close', rate_mean: 'rate_mean', venue_count: 'funding_venues' },
    lastMs: 'funding_last_ms',
    venueMask: 'funding_mask',
    present: 'funding_venues',
  });
}

export async function readCandles(
  store: Store,
  grid: Grid,
  symbol: string,
  market: TradeMarket = 'perp',
): Promise<Data<typeof CANDLE_FIELDS>> {
  return candlesOf(grid, await readTrades(store, grid, symbol, market, true));
}

export async function readOpenInterest(store: Store, grid: Grid, symbol: string): Promise<Data<typeof OPEN_INTEREST_FIELDS>> {
  return openInterestOf(grid, await readPerpStats(store, grid, symbol));
}

export async function readLiquidations(
  store: Store,
  grid: Grid,
  symbol: string,
  tier: TierChoice = 'auto',
): Promise<Data<typeof LIQUIDATION_FIELDS>> {
  const liq = await rollUp(store, grid, LIQUIDATIONS_SQL, { symbol }, tier);
  return layOnGrid(grid, liq, { fields: sameNames(LIQUIDATION_FIELDS), ...LAST_MS });
}

/**
 * The reads behind a set of bundle series, one statement per state table: candles and cvd_perp share the
 * perpetual trades (open/close read only when candles are asked for), open_interest and funding the perp stats.
 */
export function readSeries(
  store: Store,
  grid: Grid,
  symbol: string,
  names: readonly SeriesName[],
  tier: TierChoice = 'auto',
): Record<SeriesName, () => Promise<SeriesData>> {
  const once = <T>(f: () => Promise<T>): (() => Promise<T>) => {
    let p: Promise<T> | undefined;
    return () => (p ??= f());
  };
  const perp = once(() => readTrades(store, grid, symbol, 'perp', names.includes('candles'), tier));
  const stats = once(() => readPerpStats(store, grid, symbol, tier));
  return {
    candles: async () => candlesOf(grid, await perp()),
    open_interest: async () => openInterestOf(grid, await stats()),
    funding: async () => fundingOf(grid, await stats()),
    cvd_perp: async () => cvdOf(grid, await perp()),
    cvd_spot: async () => cvdOf(grid, await readTrades(store, grid, symbol, 'spot', false, tier)),
    liquidations: () => readLiquidations(store, grid, symbol, tier),
  };
}
