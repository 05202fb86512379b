/**
 * Live data categories: each is backed by one raw table of clickhouse/migrations/001_raw_tables.sql. A category is
 * `fresh` when its newest row is younger than `freshSeconds`, `stale` when older, `missing` without rows.
 */
export const RAW_TABLES = [
  'option_tickers',
  'option_trades',
  'instruments',
  'perp_trades',
  'spot_trades',
  'perp_stats',
  'liquidations',
  'index_prices',
] as const;
export type RawTable = (typeof RAW_TABLES)[number];

export interface Category {
  readonly category: string;
  readonly table: RawTable;
  readonly description: string;
  readonly freshSeconds: number;
}

export const CATEGORIES: readonly Category[] = [
  {
    category: 'options_chain',
    table: 'option_tickers',
    description: 'option tickers: marks, IVs, greeks, open interest (GEX input)',
    freshSeconds: 120,
  },
  { category: 'options_trades', table: 'option_trades', description: 'option trades (tape)', freshSeconds: 900 },
  { category: 'instruments', table: 'instruments', description: 'instrument reference data (expiries, strikes)', freshSeconds: 86_400 },
  { category: 'perp_trades', table: 'perp_trades', description: 'perpetual trades (candles, CVD)', freshSeconds: 300 },
  { category: 'spot_trades', table: 'spot_trades', description: 'spot trades (spot CVD)', freshSeconds: 300 },
  { category: 'perp_stats', table: 'perp_stats', description: 'open interest, funding, mark/index', freshSeconds: 300 },
  { category: 'liquidations', table: 'liquidations', description: 'forced liquidations (sparse)', freshSeconds: 86_400 },
  { category: 'index', table: 'index_prices', description: 'index and volatility-index prices', freshSeconds: 120 },
];
