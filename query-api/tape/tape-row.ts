/**
 * The tape row: one stored option trade as the API serves it, the same on the WebSocket `tape.{symbol}` channel
 * (from the bus event: tapeRow) and on /v2/tape and /v2/tape/recent (from the stored row: tape/read.ts). Fields per the tape
 * contract: time, venue, instrument, expiry,
 * strike, type, taker side, size in coins, price in the venue's currency and in USD, premium in USD, IV,
 * index price, block flag, trade id. Pure: no I/O.
 */
import type { OptionTrade } from '#schemas/events.ts';

export interface TapeRow {
  /** Venue trade time, ISO-8601 instant (ms). */
  readonly time: string;
  readonly venue: string;
  readonly symbol: string;
  readonly instrument: string;
  /** Expiry instant, ISO-8601. */
  readonly expiry: string;
  /** USD. */
  readonly strike: number;
  readonly type: 'call' | 'put';
  /** Taker (aggressor) side. */
  readonly side: 'buy' | 'sell';
  /** Coins of underlying. */
  readonly size: number;
  /** As quoted by the venue, in `price_currency`. */
  readonly price: number;
  readonly price_currency: string;
  /** USD per coin of underlying. */
  readonly price_usd: number;
  /** price_usd × size. */
  readonly premium_usd: number;
  /** Trade IV as a fraction, null when the venue does not publish it. */
  readonly iv: number | null;
  /** USD, null when not published. */
  readonly index_price: number | null;
  readonly block: boolean;
  readonly trade_id: string;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** The option-trade event (bus / raw table) → the tape row. */
export function tapeRow(t: OptionTrade): TapeRow {
  return {
    time: iso(t.ts),
    venue: t.venue,
    symbol: t.symbol,
    instrument: t.instrument,
    expiry: iso(t.expiry),
    strike: t.strike,
    type: t.optionType,
    side: t.side,
    size: t.size,
    price: t.price,
    price_currency: t.priceCurrency,
    price_usd: t.priceUsd,
    premium_usd: t.premiumUsd,
    iv: t.iv ?? null,
    index_price: t.indexPrice ?? null,
    block: t.block,
    trade_id: t.tradeId,
  };
}
