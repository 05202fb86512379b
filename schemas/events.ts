/**
 * Normalized market-data events: the one shared vocabulary between connectors (ingest/), the bus, the raw
 * ClickHouse tables and the processors. Each family is declared once in schemas/families.ts; its TypeScript type
 * (here), Avro schema (schemas/avro/event-schemas.ts) and raw-table row (clickhouse/rows.ts) derive from it.
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

import type { EventOf } from './family-dsl.ts';
import type { EVENT_FAMILIES as F, INSTRUMENT_KINDS, OPTION_TYPES, TAKER_SIDES } from './families.ts';

export { SYMBOLS, VENUES, SYMBOL_BASE, type MarketSymbol, type Venue } from './markets.ts';

export type TakerSide = (typeof TAKER_SIDES)[number];
export type OptionType = (typeof OPTION_TYPES)[number];
export type InstrumentKind = (typeof INSTRUMENT_KINDS)[number];

/* The event types, inferred from their one declaration in schemas/families.ts (field docs are there). */
export type Instrument = EventOf<typeof F.instrument>;
export type OptionTrade = EventOf<typeof F.option_trade>;
export type OptionTicker = EventOf<typeof F.option_ticker>;
/** Perpetual or spot trade (same shape; `market` tells which). */
export type LinearTrade = EventOf<typeof F.linear_trade>;
export type PerpStats = EventOf<typeof F.perp_stats>;
export type Liquidation = EventOf<typeof F.liquidation>;
export type IndexPrice = EventOf<typeof F.index>;
/** A frame that failed to parse or validate. Never dropped silently. */
export type DeadLetter = EventOf<typeof F.dead_letter>;
/** An analytics snapshot published for the WebSocket feed. `payload` is the JSON document. */
export type AnalyticsSnapshot = EventOf<typeof F.snapshot>;

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

/** Venues, and symbols per venue, whose keys are kept (a bound for input that is not ours). */
const MAX_EVENT_KEYS = 256;
const EVENT_KEYS = new Map<string, Map<string, string>>();

/**
 * Partition key: all events of one symbol on one venue keep their order. The same string object for every event of
 * a (venue, symbol) pair (up to MAX_EVENT_KEYS pairs), so batching by key compares and hashes it once, not per event.
 */
export function eventKey(e: { readonly venue: string; readonly symbol: string }): string {
  let bySymbol = EVENT_KEYS.get(e.venue);
  if (bySymbol === undefined) {
    if (EVENT_KEYS.size >= MAX_EVENT_KEYS) return `${e.venue}:${e.symbol}`;
    EVENT_KEYS.set(e.venue, (bySymbol = new Map()));
  }
  let key = bySymbol.get(e.symbol);
  if (key === undefined) {
    key = `${e.venue}:${e.symbol}`;
    if (bySymbol.size < MAX_EVENT_KEYS) bySymbol.set(e.symbol, key);
  }
  return key;
}
