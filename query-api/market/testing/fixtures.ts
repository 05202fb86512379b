import type { LinearTradeRow, LiquidationRow, PerpStatsRow } from '#clickhouse/rows.ts';
import type { Store } from '#clickhouse/store.ts';

/**
 * A small hand-made market (tests): BTCUSDT trades, perp stats and liquidations around T0 = 2026-01-01 00:00 UTC,
 * with bucket edges exactly on minute boundaries. Sizes and prices are exact in binary floating point.
 */
export const T0 = Date.UTC(2026, 0, 1);
export const MIN = 60_000;

const base = (venue: string, ts: number, id: string) => ({ venue, symbol: 'BTCUSDT', ts, received_at: ts, id });

export const trade = (
  market: 'perp' | 'spot',
  venue: string,
  ts: number,
  id: string,
  price: number,
  size: number,
  side: 'buy' | 'sell',
): LinearTradeRow => ({
  ...base(venue, ts, id),
  market,
  instrument: 'BTCUSDT',
  price,
  size,
  side,
  trade_id: id,
});

export const PERP: readonly LinearTradeRow[] = [
  trade('perp', 'bybit', T0 - 1, 'A', 100, 1, 'buy'), // 23:59:59.999 -> bucket 23:59
  trade('perp', 'okx', T0, 'B', 104, 2, 'sell'), // 00:00:00.000 -> bucket 00:00 (first of it)
  trade('perp', 'bybit', T0 + 30_000, 'C', 110, 0.5, 'buy'),
  trade('perp', 'binance', T0 + 59_999, 'D', 102, 1.5, 'buy'), // last of 00:00
  trade('perp', 'okx', T0 + 2 * MIN, 'E', 96, 1, 'sell'), // 00:02
  trade('perp', 'deribit', T0 + 5 * MIN + 1, 'F', 100, 4, 'buy'), // 00:05
];

export const SPOT: readonly LinearTradeRow[] = [
  trade('spot', 'bybit', T0 + 10_000, 'S1', 101, 1, 'buy'),
  trade('spot', 'okx', T0 + 70_000, 'S2', 99, 3, 'sell'),
];

const stats = (venue: string, ts: number, id: string, oi: number | null, oiUsd: number | null, funding: number | null): PerpStatsRow => ({
  ...base(venue, ts, id),
  instrument: 'BTCUSDT',
  open_interest: oi,
  open_interest_usd: oiUsd,
  funding_rate: funding,
  next_funding_time: null,
  mark_price: null,
  index_price: null,
});

export const STATS: readonly PerpStatsRow[] = [
  stats('bybit', T0 + 1000, 'st1', 100, 10_000, 0.0001),
  stats('bybit', T0 + 50_000, 'st2', 110, 11_000, 0.0003),
  stats('okx', T0 + 20_000, 'st3', 50, 5000, 0.0002),
  stats('okx', T0 + 61_000, 'st4', 60, null, null), // 00:01: OI only
];

const liq = (venue: string, ts: number, id: string, side: 'long' | 'short', price: number, size: number): LiquidationRow => ({
  ...base(venue, ts, id),
  instrument: 'BTCUSDT',
  side,
  price,
  size,
});

export const LIQS: readonly LiquidationRow[] = [
  liq('bybit', T0 + 5000, 'L1', 'long', 100, 1),
  liq('okx', T0 + 6000, 'L2', 'short', 105, 2),
  liq('binance', T0 + 65_000, 'L3', 'long', 98, 0.5),
];

/** Inserts the whole set (the materialized views fill the 1-minute states). */
export async function seedMarket(store: Store): Promise<void> {
  await store.insert('perp_trades', PERP);
  await store.insert('spot_trades', SPOT);
  await store.insert('perp_stats', STATS);
  await store.insert('liquidations', LIQS);
}
