/** The product's symbols and venues (re-exported by schemas/events.ts; declared here so families.ts can use them). */

export const SYMBOLS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'HYPEUSDT'] as const;
export type MarketSymbol = (typeof SYMBOLS)[number];

/** Venue filter names, exactly as the API spec spells them. */
export const VENUES = ['deribit', 'bybit', 'okx', 'binance', 'derive', 'thalex', 'delta_india', 'delta', 'bullish', 'paradex'] as const;
export type Venue = (typeof VENUES)[number];

/** Base asset of each symbol, as venues name it in instrument names. */
export const SYMBOL_BASE: Readonly<Record<MarketSymbol, string>> = {
  BTCUSDT: 'BTC',
  ETHUSDT: 'ETH',
  SOLUSDT: 'SOL',
  HYPEUSDT: 'HYPE',
};
