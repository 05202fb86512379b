import type { MarketSymbol, OptionType } from '#schemas/events.ts';
import type { CalendarPolicy } from './calendar.ts';

/** The venues the sandbox serves (every venue of schemas/events.ts VENUES). */
export const SANDBOX_VENUES = [
  'deribit',
  'bybit',
  'okx',
  'binance',
  'derive',
  'thalex',
  'delta_india',
  'delta',
  'bullish',
  'paradex',
] as const;
export type SandboxVenue = (typeof SANDBOX_VENUES)[number];

export interface OptionSeriesSpec {
  readonly symbol: MarketSymbol;
  /** OKX instFamily (BTC-USD), Binance underlying (BTCUSDT), Deribit currency (BTC / USDC), Bybit baseCoin. */
  readonly family: string;
  readonly name: (expiry: number, strike: number, type: OptionType) => string;
  /** Coins of underlying per contract. */
  readonly contractSize: number;
  /** Order size step, in contracts. */
  readonly lot: number;
  /** Price quoted in coin (Deribit BTC/ETH, OKX BTC-USD) rather than USD. */
  readonly inverse: boolean;
  readonly priceCurrency: string;
  readonly priceTick: number;
  readonly settlementCurrency: string;
  readonly quoteCurrency: string;
  readonly calendar: CalendarPolicy;
  /** Strikes on each side of the ATM strike. */
  readonly strikesEachSide: number;
  /** Expiry hour, UTC. Default 8 (Delta: 12). */
  readonly expiryHourUtc?: number;
}

export interface LinearSpec {
  readonly symbol: MarketSymbol;
  readonly instrument: string;
  /** Coins per contract for linear contracts; for inverse contracts (Deribit BTC/ETH-PERPETUAL) USD per contract. */
  readonly contractSize: number;
  /** Inverse: sizes are in USD (contracts × contractSize). */
  readonly inverse: boolean;
  /** Size step in contracts. */
  readonly lot: number;
  readonly settlementCurrency: string;
  readonly quoteCurrency: string;
}

/**
 * How a venue publishes liquidations: on a channel of their own (Bybit, OKX, Binance), only as perp trades
 * flagged as liquidations (Deribit `liquidation`, Paradex `trade_type` LIQUIDATION), or not at all publicly (the
 * model then generates none).
 */
export type LiquidationFeed = 'separate' | 'as_trade' | 'none';

export interface VenueSpec {
  readonly venue: SandboxVenue;
  /** Activity share of the venue (trade rates and open interest scale with it). */
  readonly share: number;
  readonly liquidations: LiquidationFeed;
  /** Name of the venue's index price per base coin, when the venue publishes one on its own channel. */
  readonly indexName?: (base: string) => string;
  readonly options: readonly OptionSeriesSpec[];
  readonly perps: readonly LinearSpec[];
  readonly spots: readonly LinearSpec[];
}
