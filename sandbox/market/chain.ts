import type { Instrument, OptionTicker, OptionTrade, OptionType, TakerSide } from '#schemas/events.ts';
import {
  MS_PER_YEAR as YEAR_MS,
  greeks as black76Greeks,
  price as black76Price,
  type Greeks as Black76Greeks,
} from '#processors/analytics/black76.ts';
import { listExpiries } from './calendar.ts';
import type { Rng } from './prng.ts';
import { smileVol, strikeGrid } from './smile.ts';
import { indexPrice, type FlowSettings, type UnderlyingState, type VenueIds } from './state.ts';
import { roundTick, roundTo } from './symbols.ts';
import type { OptionSeriesSpec, SandboxVenue } from './venues.ts';

export interface OptionContract {
  readonly instrument: string;
  readonly expiry: number;
  readonly strike: number;
  readonly type: OptionType;
  readonly listedAt: number;
  /** Open interest, coins. */
  oi: number;
}

/** Model quote of one contract at one instant (what the venue servers need beyond the normalized events). */
export interface OptionQuote {
  readonly contract: OptionContract;
  readonly spec: OptionSeriesSpec;
  readonly tYears: number;
  readonly forward: number;
  readonly index: number;
  readonly markIv: number;
  /** Mark in the venue's price currency (coin for inverse series). */
  readonly markVenue: number;
  /** USD per coin (= markVenue × index for inverse series). */
  readonly markUsd: number;
  readonly greeks: QuoteGreeks;
}

/** The analytics library's Black-76 (r = 0) at the quote: price in USD per coin, then the four greeks. */
export interface QuoteGreeks extends Black76Greeks {
  readonly price: number;
}

const IV_HALF_SPREAD = 0.015;

/** One venue's option chain on one underlying: listings with expiry roll, marks, OI, customer-flow trades. */
export class OptionChain {
  readonly venue: SandboxVenue;
  readonly spec: OptionSeriesSpec;
  readonly #u: UnderlyingState;
  readonly #rng: Rng;
  readonly #share: number;
  readonly #byName = new Map<string, OptionContract>();
  #active: OptionContract[] = [];
  #pickWeights: {
    readonly at: number;
    readonly spot: number;
    readonly level: number;
    readonly active: readonly OptionContract[];
    readonly n: number;
    readonly weights: readonly number[];
    readonly total: number;
  } | null = null;
  #expiries: number[] = [];
  #cursor = 0;

  constructor(venue: SandboxVenue, spec: OptionSeriesSpec, u: UnderlyingState, share: number, rng: Rng, nowMs: number) {
    this.venue = venue;
    this.spec = spec;
    this.#u = u;
    this.#rng = rng;
    this.#share = share;
    this.roll(nowMs);
  }

  get contracts(): readonly OptionContract[] {
    return this.#active;
  }

  get(instrument: string): OptionContract | undefined {
    return this.#byName.get(instrument);
  }

  /** Expire contracts at/after their expiry and list new expiries. Returns the instrument events of the change. */
  roll(nowMs: number): Instrument[] {
    const changes: Instrument[] = [];
    if (this.#expiries.length > 0 && (this.#expiries[0] ?? Infinity) > nowMs) return changes;
    const expired = this.#active.filter((c) => c.expiry <= nowMs);
    for (const c of expired) changes.push(this.instrument(c, nowMs, false));
    this.#active = this.#active.filter((c) => c.expiry > nowMs);
    const live = new Set(this.#active.map((c) => c.expiry));
    for (const expiry of listExpiries(nowMs, this.spec.calendar, this.spec.expiryHourUtc ?? 8)) {
      if (live.has(expiry)) continue;
      const t = (expiry - nowMs) / YEAR_MS;
      const fwd = this.#forward(t);
      for (const strike of strikeGrid(fwd, this.#u.level, t, this.spec.strikesEachSide)) {
        for (const type of ['call', 'put'] as const) {
          const c: OptionContract = {
            instrument: this.spec.name(expiry, strike, type),
            expiry,
            strike,
            type,
            listedAt: nowMs,
            oi: this.#initialOi(fwd, strike, t, type),
          };
          this.#active.push(c);
          this.#byName.set(c.instrument, c);
          changes.push(this.instrument(c, nowMs, true));
        }
      }
    }
    this.#active.sort((a, b) => a.expiry - b.expiry || a.strike - b.strike || (a.type < b.type ? -1 : 1));
    this.#expiries = [...new Set(this.#active.map((c) => c.expiry))].sort((a, b) => a - b);
    return changes;
  }

  #forward(tYears: number): number {
    return this.#u.spot * Math.exp(this.#u.params.carry * tYears);
  }

  #initialOi(fwd: number, strike: number, t: number, type: OptionType): number {
    const p = this.#u.params;
    const x = Math.log(strike / fwd) / (this.#u.level * Math.sqrt(Math.max(t, 1 / 365)));
    // OTM side carries more OI (puts below, calls above), longer expiries carry more.
    const otm = (type === 'put' && x < 0) || (type === 'call' && x > 0) ? 1.3 : 0.7;
    const usd = 1.5e7 * p.activity * this.#share * Math.exp((-0.5 * x * x) / 2) * otm * (0.15 + Math.min(1, t / 0.08));
    const coins = (usd / p.startPrice) * this.#rng.lognormal(1, 0.35);
    const step = this.spec.lot * this.spec.contractSize;
    return roundTo(Math.round(coins / step) * step, 8);
  }

  instrument(c: OptionContract, nowMs: number, active: boolean): Instrument {
    return {
      venue: this.venue,
      symbol: this.spec.symbol,
      ts: nowMs,
      receivedAt: nowMs,
      id: `${this.venue}:${c.instrument}`,
      instrument: c.instrument,
      kind: 'option',
      strike: c.strike,
      expiry: c.expiry,
      optionType: c.type,
      contractSize: this.spec.contractSize,
      settlementCurrency: this.spec.settlementCurrency,
      quoteCurrency: this.spec.quoteCurrency,
      active,
    };
  }

  quote(c: OptionContract, nowMs: number): OptionQuote {
    const t = Math.max((c.expiry - nowMs) / YEAR_MS, 1e-7);
    const forward = this.#forward(t);
    const index = indexPrice(this.#u);
    const markIv = roundTo(smileVol(this.#u.params, this.#u.level, forward, c.strike, t), 4);
    const greeks: QuoteGreeks = {
      price: Math.max(black76Price(c.type, forward, c.strike, markIv, t), 0),
      ...black76Greeks(c.type, forward, c.strike, markIv, t),
    };
    const markVenue = this.spec.inverse ? roundTo(greeks.price / index, 8) : roundTo(greeks.price, 4);
    const markUsd = this.spec.inverse ? markVenue * index : markVenue;
    return { contract: c, spec: this.spec, tYears: t, forward: roundTo(forward, 4), index, markIv, markVenue, markUsd, greeks };
  }

  ticker(c: OptionContract, nowMs: number): OptionTicker {
    const q = this.quote(c, nowMs);
    return {
      venue: this.venue,
      symbol: this.spec.symbol,
      ts: nowMs,
      receivedAt: nowMs,
      id: `${this.venue}:${c.instrument}:${nowMs}`,
      instrument: c.instrument,
      strike: c.strike,
      expiry: c.expiry,
      optionType: c.type,
      markPrice: q.markUsd,
      markIv: q.markIv,
      bidIv: roundTo(Math.max(0.01, q.markIv - IV_HALF_SPREAD), 4),
      askIv: roundTo(q.markIv + IV_HALF_SPREAD, 4),
      delta: roundTo(q.greeks.delta, 6),
      gamma: roundTo(q.greeks.gamma, 10),
      vega: roundTo(q.greeks.vega, 6),
      theta: roundTo(q.greeks.theta, 6),
      openInterest: c.oi,
      underlyingPrice: q.forward,
      indexPrice: q.index,
    };
  }

  /** Tickers for the next slice of the chain so every contract is refreshed once per `intervalMs`. */
  tickerSlice(nowMs: number, tickMs: number, intervalMs: number): OptionTicker[] {
    const n = this.#active.length;
    if (n === 0) return [];
    const count = Math.min(n, Math.ceil((n * tickMs) / intervalMs));
    const out: OptionTicker[] = [];
    for (let i = 0; i < count; i++) {
      this.#cursor = this.#cursor % n;
      const c = this.#active[this.#cursor++];
      if (c) out.push(this.ticker(c, nowMs));
    }
    return out;
  }

  /** Pick a contract the way customer flow does: near-dated and near the money. */
  pick(nowMs: number): OptionContract | undefined {
    // The weights depend only on the instant, spot, vol level and the listed contracts: a burst of trades at one
    // instant reuses them (same numbers, so the same picks as recomputing; only the exp/log work is saved).
    const w = this.#pickWeights;
    if (
      w === null ||
      w.at !== nowMs ||
      w.spot !== this.#u.spot ||
      w.level !== this.#u.level ||
      w.active !== this.#active ||
      w.n !== this.#active.length
    ) {
      const weights = this.#active.map((c) => {
        const t = Math.max((c.expiry - nowMs) / YEAR_MS, 1 / (365 * 24));
        const x = Math.log(c.strike / this.#u.spot) / (this.#u.level * Math.sqrt(t));
        return Math.exp(-0.5 * (x / 1.3) ** 2) * (1 / (1 + t / 0.05) + 0.15);
      });
      const total = weights.reduce((a, b) => a + b, 0);
      this.#pickWeights = {
        at: nowMs,
        spot: this.#u.spot,
        level: this.#u.level,
        active: this.#active,
        n: this.#active.length,
        weights,
        total,
      };
      return this.#active[this.#rng.weighted(weights, total)];
    }
    return this.#active[this.#rng.weighted(w.weights, w.total)];
  }

  /** One customer-flow trade: taker side biased to buying OTM options; OI opens or closes by the trade size. */
  trade(nowMs: number, ids: VenueIds, flow: FlowSettings, forced?: OptionContract): OptionTrade | null {
    const c = forced ?? this.pick(nowMs);
    if (!c || c.expiry <= nowMs) return null;
    const q = this.quote(c, nowMs);
    const otm = c.type === 'call' ? c.strike > q.forward : c.strike < q.forward;
    const pBuy = otm ? 0.5 + flow.customerBuyBias : 0.5;
    const side: TakerSide = this.#rng.next() < pBuy ? 'buy' : 'sell';
    const p = this.#u.params;
    const coins = this.#rng.lognormal(p.optionNotionalUsd / this.#u.spot, 1);
    const step = this.spec.lot;
    const contracts = roundTo(Math.max(step, Math.round(coins / this.spec.contractSize / step) * step), 8);
    const size = roundTo(contracts * this.spec.contractSize, 8);
    // Takers cross a spread of ~2-6 % of mark (at least one tick).
    const edge = (0.02 + 0.04 * this.#rng.next()) * (side === 'buy' ? 1 : -1);
    const rawVenue = this.spec.inverse ? (q.markUsd * (1 + edge)) / q.index : q.markUsd * (1 + edge);
    const price = Math.max(this.spec.priceTick, roundTick(rawVenue, this.spec.priceTick));
    const priceUsd = this.spec.inverse ? price * q.index : price;
    const vegaYear = q.greeks.vega * 100;
    const iv = vegaYear > 1e-9 ? q.markIv + (priceUsd - q.markUsd) / vegaYear : q.markIv;
    const ivClamped = roundTo(Math.min(q.markIv * 2, Math.max(q.markIv * 0.5, iv)), 4);
    if (this.#rng.next() < flow.openingProbability || c.oi < size) c.oi = roundTo(c.oi + size, 8);
    else c.oi = roundTo(c.oi - size, 8);
    const tradeId = ids.next();
    return {
      venue: this.venue,
      symbol: this.spec.symbol,
      ts: nowMs,
      receivedAt: nowMs,
      id: `${this.venue}:${tradeId}`,
      instrument: c.instrument,
      strike: c.strike,
      expiry: c.expiry,
      optionType: c.type,
      price,
      priceCurrency: this.spec.priceCurrency,
      priceUsd,
      size,
      premiumUsd: priceUsd * size,
      side,
      iv: ivClamped,
      indexPrice: q.index,
      underlyingPrice: q.forward,
      tradeId,
      block: false,
    };
  }
}
