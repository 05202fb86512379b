import type { Instrument, LinearTrade, Liquidation, PerpStats, TakerSide } from '#schemas/events.ts';
import type { Rng } from './prng.ts';
import { indexPrice, type FlowSettings, type UnderlyingState, type VenueIds } from './state.ts';
import { roundTo } from './symbols.ts';
import type { LinearSpec, SandboxVenue } from './venues.ts';

const FUNDING_MS = 8 * 3600 * 1000;

/** Sizes: linear in coins (contracts × contractSize); inverse in USD (contracts × contractSize USD). */
function drawSize(rng: Rng, spec: LinearSpec, notionalUsd: number, price: number): { contracts: number; coins: number } {
  const usd = rng.lognormal(notionalUsd, 1.1);
  if (spec.inverse) {
    const contracts = Math.max(spec.lot, Math.round(usd / spec.contractSize / spec.lot) * spec.lot);
    return { contracts, coins: (contracts * spec.contractSize) / price };
  }
  const contracts = roundTo(Math.max(spec.lot, Math.round(usd / price / spec.contractSize / spec.lot) * spec.lot), 8);
  return { contracts, coins: roundTo(contracts * spec.contractSize, 8) };
}

export function linearInstrument(venue: SandboxVenue, spec: LinearSpec, kind: 'perp' | 'spot', nowMs: number): Instrument {
  return {
    venue,
    symbol: spec.symbol,
    ts: nowMs,
    receivedAt: nowMs,
    id: `${venue}:${kind}:${spec.instrument}`,
    instrument: spec.instrument,
    kind,
    strike: null,
    expiry: null,
    optionType: null,
    contractSize: spec.contractSize,
    settlementCurrency: spec.settlementCurrency,
    quoteCurrency: spec.quoteCurrency,
    active: true,
  };
}

/** A venue's perpetual on one underlying: premium/funding (OU), open interest, taker trades, liquidations. */
export class PerpBook {
  readonly venue: SandboxVenue;
  readonly spec: LinearSpec;
  readonly #u: UnderlyingState;
  readonly #rng: Rng;
  premium: number;
  fundingRate: number;
  /** Coins. */
  oi: number;

  constructor(venue: SandboxVenue, spec: LinearSpec, u: UnderlyingState, share: number, rng: Rng) {
    this.venue = venue;
    this.spec = spec;
    this.#u = u;
    this.#rng = rng;
    this.premium = 0.0002 + 0.0002 * rng.normal();
    this.fundingRate = 0.0001;
    this.oi = roundTo(((4e8 * share * u.params.activity) / u.params.startPrice) * rng.lognormal(1, 0.2), 3);
  }

  /** Advance premium and funding by dtSec. */
  evolve(dtSec: number): void {
    this.premium += (0.0002 - this.premium) * Math.min(1, 0.02 * dtSec) + 0.00003 * Math.sqrt(dtSec) * this.#rng.normal();
    this.premium -= this.#u.lastJump * 0.05;
    this.fundingRate = roundTo(Math.min(0.0075, Math.max(-0.0075, 0.00005 + this.premium * 0.5)), 8);
  }

  mark(): number {
    return roundTo(indexPrice(this.#u) * (1 + this.premium), this.#u.params.priceDecimals);
  }

  #price(): number {
    return roundTo(this.mark() * (1 + 0.00008 * this.#rng.normal()), this.#u.params.priceDecimals);
  }

  trade(nowMs: number, ids: VenueIds, flow: FlowSettings, side?: TakerSide, notionalUsd?: number): LinearTrade {
    const price = this.#price();
    const momentum = Math.tanh(this.#u.lastReturn / 0.001) * 0.2;
    const s: TakerSide = side ?? (this.#rng.next() < 0.5 + momentum ? 'buy' : 'sell');
    const { coins } = drawSize(this.#rng, this.spec, notionalUsd ?? this.#u.params.perpNotionalUsd, price);
    if (this.#rng.next() < flow.openingProbability || this.oi < coins) this.oi = roundTo(this.oi + coins, 6);
    else this.oi = roundTo(this.oi - coins, 6);
    const tradeId = ids.next();
    return {
      venue: this.venue,
      symbol: this.spec.symbol,
      ts: nowMs,
      receivedAt: nowMs,
      id: `${this.venue}:${tradeId}`,
      market: 'perp',
      instrument: this.spec.instrument,
      price,
      size: coins,
      side: s,
      tradeId,
    };
  }

  /** A forced close of a `side` position. Returns the liquidation and the trade it printed as. */
  liquidation(nowMs: number, ids: VenueIds, flow: FlowSettings, side: 'long' | 'short'): { trade: LinearTrade; liquidation: Liquidation } {
    const trade = this.trade(nowMs, ids, flow, side === 'long' ? 'sell' : 'buy', this.#u.params.perpNotionalUsd * 2);
    this.oi = Math.max(0, roundTo(this.oi - trade.size, 6));
    return {
      trade,
      liquidation: {
        venue: this.venue,
        symbol: this.spec.symbol,
        ts: nowMs,
        receivedAt: nowMs,
        id: `${this.venue}:liq:${trade.tradeId}`,
        instrument: this.spec.instrument,
        side,
        price: trade.price,
        size: trade.size,
      },
    };
  }

  stats(nowMs: number): PerpStats {
    const mark = this.mark();
    return {
      venue: this.venue,
      symbol: this.spec.symbol,
      ts: nowMs,
      receivedAt: nowMs,
      id: `${this.venue}:${this.spec.instrument}:${nowMs}`,
      instrument: this.spec.instrument,
      openInterest: this.oi,
      openInterestUsd: roundTo(this.oi * mark, 2),
      fundingRate: this.fundingRate,
      nextFundingTime: (Math.floor(nowMs / FUNDING_MS) + 1) * FUNDING_MS,
      markPrice: mark,
      indexPrice: indexPrice(this.#u),
    };
  }
}

/** A venue's spot market on one underlying: taker trades around the index. */
export class SpotBook {
  readonly venue: SandboxVenue;
  readonly spec: LinearSpec;
  readonly #u: UnderlyingState;
  readonly #rng: Rng;

  constructor(venue: SandboxVenue, spec: LinearSpec, u: UnderlyingState, rng: Rng) {
    this.venue = venue;
    this.spec = spec;
    this.#u = u;
    this.#rng = rng;
  }

  trade(nowMs: number, ids: VenueIds): LinearTrade {
    const price = roundTo(this.#u.spot * (1 + 0.00005 * this.#rng.normal()), this.#u.params.priceDecimals);
    const { coins } = drawSize(this.#rng, this.spec, this.#u.params.perpNotionalUsd / 3, price);
    const side: TakerSide = this.#rng.next() < 0.5 + Math.tanh(this.#u.lastReturn / 0.001) * 0.2 ? 'buy' : 'sell';
    const tradeId = ids.next();
    return {
      venue: this.venue,
      symbol: this.spec.symbol,
      ts: nowMs,
      receivedAt: nowMs,
      id: `${this.venue}:spot:${tradeId}`,
      market: 'spot',
      instrument: this.spec.instrument,
      price,
      size: coins,
      side,
      tradeId,
    };
  }
}
