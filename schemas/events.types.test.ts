/**
 * The inferred event types hold the v1 hand-written interfaces exactly (copied below from schemas/events.ts at commit
 * 19bd6f3; fields added later are not compared): checked by the compiler (tsc fails on a difference in name, type or
 * readonly-ness); the test itself only needs to load.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exact, type Equal, type Flat } from './testing/type-equality.ts';
import type { MarketSymbol, Venue, TakerSide, OptionType, InstrumentKind } from './events.ts';
import type * as E from './events.ts';

interface V1EventBase {
  readonly venue: Venue;
  readonly symbol: MarketSymbol;
  /** Venue event time, ms UTC. */
  readonly ts: number;
  /** Local receive time, ms UTC. */
  readonly receivedAt: number;
  /** Stable id for idempotent writes. */
  readonly id: string;
}

interface V1Instrument extends V1EventBase {
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

interface V1OptionTrade extends V1EventBase {
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

interface V1OptionTicker extends V1EventBase {
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
interface V1LinearTrade extends V1EventBase {
  readonly market: 'perp' | 'spot';
  readonly instrument: string;
  /** USD per coin. */
  readonly price: number;
  /** Coins. */
  readonly size: number;
  readonly side: TakerSide;
  readonly tradeId: string;
}

interface V1PerpStats extends V1EventBase {
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

interface V1Liquidation extends V1EventBase {
  readonly instrument: string;
  /** Side of the liquidated position. */
  readonly side: 'long' | 'short';
  readonly price: number;
  /** Coins. */
  readonly size: number;
}

interface V1IndexPrice extends V1EventBase {
  /** 'index' = underlying index price; 'vol_index' = volatility index such as Deribit DVOL (value in vol points). */
  readonly kind: 'index' | 'vol_index';
  readonly name: string;
  readonly value: number;
}

/** A frame that failed to parse or validate. Never dropped silently. */
interface V1DeadLetter {
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
interface V1AnalyticsSnapshot {
  readonly symbol: MarketSymbol;
  readonly kind: string;
  readonly computedAt: number;
  readonly payload: string;
  readonly id: string;
}

test('inferred event types equal the v1 interfaces', () => {
  exact<Equal<Pick<E.Instrument, keyof V1Instrument>, Flat<V1Instrument>>>(true);
  exact<Equal<Pick<E.OptionTrade, keyof V1OptionTrade>, Flat<V1OptionTrade>>>(true);
  exact<Equal<Pick<E.OptionTicker, keyof V1OptionTicker>, Flat<V1OptionTicker>>>(true);
  exact<Equal<Pick<E.LinearTrade, keyof V1LinearTrade>, Flat<V1LinearTrade>>>(true);
  exact<Equal<Pick<E.PerpStats, keyof V1PerpStats>, Flat<V1PerpStats>>>(true);
  exact<Equal<Pick<E.Liquidation, keyof V1Liquidation>, Flat<V1Liquidation>>>(true);
  exact<Equal<Pick<E.IndexPrice, keyof V1IndexPrice>, Flat<V1IndexPrice>>>(true);
  exact<Equal<Pick<E.DeadLetter, keyof V1DeadLetter>, Flat<V1DeadLetter>>>(true);
  exact<Equal<Pick<E.AnalyticsSnapshot, keyof V1AnalyticsSnapshot>, Flat<V1AnalyticsSnapshot>>>(true);
  // Fields added after v1 (`added(...)`) are optional properties: `?: T | null`.
  exact<
    Equal<Pick<E.OptionTicker, 'bidPrice' | 'priceCurrency'>, { readonly bidPrice?: number | null; readonly priceCurrency?: string | null }>
  >(true);
  // @ts-expect-error an added field is not a required key
  exact<Equal<Pick<E.OptionTicker, 'bidPrice'>, { readonly bidPrice: number | null }>>(true);
  // @ts-expect-error a differing type is caught (optional vs required number)
  exact<Equal<Pick<E.PerpStats, keyof V1PerpStats>, Flat<V1PerpStats & { readonly extra: number }>>>(true);
  assert.ok(true);
});
