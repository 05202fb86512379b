/**
 * Normalized market-data events: the one shared vocabulary between connectors (ingest/), the bus, the raw
 * ClickHouse tables and the processors. Every family has an Avro schema in schemas/avro/ with the same
 * field names; keep the two in step (schemas/avro-codec.test.ts checks it).
 *
 * Unit rules (also in ingest/README.md):
 * - Timestamps are integer milliseconds since the Unix epoch, UTC. `ts` is the venue's own event time,
 *   `receivedAt` the local receive time.
 * - Sizes are in coins of the underlying (contracts × contract value), never in contracts or USD.
 * - Prices on perps/spot/index are USD(-stablecoin) per coin. Option `price` is as the venue quotes it in
 *   `priceCurrency` (e.g. BTC for Deribit inverse options); `priceUsd` is that converted to USD per coin.
 * - Implied volatilities are fractions (0.55 = 55 %), never percent.
 * - `side` on trades is the TAKER (aggressor) side. Liquidation `side` is the side of the liquidated
 *   POSITION ('long' = a long was closed by a forced sell).
 * - A value the venue does not publish is `null`, never 0 and never carried forward from an older message.
 * - `id` is stable across redeliveries (venue trade id, or a hash of the identifying fields) so writes are
 *   idempotent.
 */

export const SYMBOLS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'HYPEUSDT'] as const;
export type MarketSymbol = (typeof SYMBOLS)[number];

/** Venue filter names, exactly as the API spec spells them. */
export const VENUES = [
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
export type Venue = (typeof VENUES)[number];

/** Base asset of each symbol, as venues name it in instrument names. */
export const SYMBOL_BASE: Readonly<Record<MarketSymbol, string>> = {
  BTCUSDT: 'BTC',
  ETHUSDT: 'ETH',
  SOLUSDT: 'SOL',
  HYPEUSDT: 'HYPE',
};

export type TakerSide = 'buy' | 'sell';
export type OptionType = 'call' | 'put';
export type InstrumentKind = 'option' | 'perp' | 'future' | 'spot';

interface EventBase {
  readonly venue: Venue;
  readonly symbol: MarketSymbol;
  /** Venue event time, ms UTC. */
  readonly ts: number;
  /** Local receive time, ms UTC. */
  readonly receivedAt: number;
  /** Stable id for idempotent writes. */
  readonly id: string;
}

export interface Instrument extends EventBase {
  readonly instrument: string;
  readonly kind: InstrumentKind;
  /** Options only. */
  readonly strike: number | null;
  /** Options and futures: expiry instant, ms UTC. */
  readonly expiry: number | null;
  readonly optionType: OptionType | null;
  /** Coins of underlying per contract (Deribit option 1, OKX BTC-USD option 0.01, Delta 0.001, ...). */
  readonly contractSize: number;
  readonly settlementCurrency: string;
  readonly quoteCurrency: string;
  readonly active: boolean;
}

export interface OptionTrade extends EventBase {
  readonly instrument: string;
  readonly strike: number;
  readonly expiry: number;
  readonly optionType: OptionType;
  /** As quoted by the venue, in `priceCurrency`. */
  readonly price: number;
  readonly priceCurrency: string;
  /** USD per coin of underlying. */
  readonly priceUsd: number;
  /** Coins of underlying. */
  readonly size: number;
  /** priceUsd × size. */
  readonly premiumUsd: number;
  readonly side: TakerSide;
  /** Trade IV, fraction. */
  readonly iv: number | null;
  readonly indexPrice: number | null;
  readonly underlyingPrice: number | null;
  readonly tradeId: string;
  readonly block: boolean;
}

export interface OptionTicker extends EventBase {
  readonly instrument: string;
  readonly strike: number;
  readonly expiry: number;
  readonly optionType: OptionType;
  /** USD per coin of underlying. */
  readonly markPrice: number | null;
  readonly markIv: number | null;
  readonly bidIv: number | null;
  readonly askIv: number | null;
  readonly delta: number | null;
  readonly gamma: number | null;
  readonly vega: number | null;
  readonly theta: number | null;
  /** Coins of underlying. */
  readonly openInterest: number | null;
  /** The expiry's forward / underlying future price the venue prices against. */
  readonly underlyingPrice: number | null;
  readonly indexPrice: number | null;
}

/** Perpetual or spot trade (same shape; `market` tells which). */
export interface LinearTrade extends EventBase {
  readonly market: 'perp' | 'spot';
  readonly instrument: string;
  /** USD per coin. */
  readonly price: number;
  /** Coins. */
  readonly size: number;
  readonly side: TakerSide;
  readonly tradeId: string;
}

export interface PerpStats extends EventBase {
  readonly instrument: string;
  /** Coins. */
  readonly openInterest: number | null;
  readonly openInterestUsd: number | null;
  /** Per funding interval, fraction (0.0001 = 1 bp). */
  readonly fundingRate: number | null;
  readonly nextFundingTime: number | null;
  readonly markPrice: number | null;
  readonly indexPrice: number | null;
}

export interface Liquidation extends EventBase {
  readonly instrument: string;
  /** Side of the liquidated position. */
  readonly side: 'long' | 'short';
  readonly price: number;
  /** Coins. */
  readonly size: number;
}

export interface IndexPrice extends EventBase {
  /** 'index' = underlying index price; 'vol_index' = volatility index such as Deribit DVOL (value in vol points). */
  readonly kind: 'index' | 'vol_index';
  readonly name: string;
  readonly value: number;
}

/** A frame that failed to parse or validate. Never dropped silently. */
export interface DeadLetter {
  readonly venue: string;
  readonly channel: string;
  readonly reason: string;
  /** The raw frame (UTF-8, or base64 for binary frames with `encoding` = 'base64'). */
  readonly raw: string;
  readonly encoding: 'utf8' | 'base64';
  readonly receivedAt: number;
  readonly id: string;
}

/** An analytics snapshot published for the WebSocket feed. `payload` is the JSON document. */
export interface AnalyticsSnapshot {
  readonly symbol: MarketSymbol;
  readonly kind: string;
  readonly computedAt: number;
  readonly payload: string;
  readonly id: string;
}

/** Every normalized market event, tagged with its family. */
export type MarketEvent =
  | { readonly type: 'instrument'; readonly event: Instrument }
  | { readonly type: 'option_trade'; readonly event: OptionTrade }
  | { readonly type: 'option_ticker'; readonly event: OptionTicker }
  | { readonly type: 'perp_trade'; readonly event: LinearTrade }
  | { readonly type: 'spot_trade'; readonly event: LinearTrade }
  | { readonly type: 'perp_stats'; readonly event: PerpStats }
  | { readonly type: 'liquidation'; readonly event: Liquidation }
  | { readonly type: 'index'; readonly event: IndexPrice };

export type MarketEventType = MarketEvent['type'];

/** Bus topic of each family (versioned; see ARCHITECTURE.md). */
export const TOPICS = {
  instrument: 'md.instruments.v1',
  option_trade: 'md.option_trades.v1',
  option_ticker: 'md.option_tickers.v1',
  perp_trade: 'md.perp_trades.v1',
  spot_trade: 'md.spot_trades.v1',
  perp_stats: 'md.perp_stats.v1',
  liquidation: 'md.liquidations.v1',
  index: 'md.index.v1',
  dead_letter: 'md.dead_letter.v1',
  snapshot: 'analytics.snapshots.v1',
} as const;
export type TopicName = (typeof TOPICS)[keyof typeof TOPICS];

/** Partition key: all events of one symbol on one venue keep their order. */
export function eventKey(e: { readonly venue: string; readonly symbol: string }): string {
  return `${e.venue}:${e.symbol}`;
}
