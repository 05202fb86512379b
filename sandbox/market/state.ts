import type { MarketSymbol } from '#schemas/events.ts';
import type { Rng } from './prng.ts';
import type { SymbolParams } from './symbols.ts';
import { roundTo } from './symbols.ts';
import { atmVol } from './smile.ts';

/** Mutable state of one underlying, shared by every venue's books. */
export interface UnderlyingState {
  readonly symbol: MarketSymbol;
  readonly params: SymbolParams;
  spot: number;
  /** Current 30-day-ish vol level (fraction); the surface scales with it. */
  level: number;
  /** Log-return of the jump part of the last tick (0 when none). */
  lastJump: number;
  /** Log-return of the last tick. */
  lastReturn: number;
}

/** The index price as venues publish it (rounded). */
export function indexPrice(u: UnderlyingState): number {
  return roundTo(u.spot, u.params.priceDecimals);
}

/** DVOL-like value in vol points: 30-day ATM implied vol × 100. */
export function volIndexValue(u: UnderlyingState): number {
  return roundTo(atmVol(u.level, 30 / 365) * 100, 2);
}

/** Flow settings shared by the books. */
export interface FlowSettings {
  /** Multiplies every trade rate. */
  readonly activity: number;
  /** Customers' extra probability of buying OTM options (0.15 → 65 % of OTM trades are taker buys). */
  readonly customerBuyBias: number;
  /** Probability that a trade opens new positions (OI += size); otherwise it closes (OI -= size). */
  readonly openingProbability: number;
}

/** Per-venue trade id generator, in each venue's id style. */
export class VenueIds {
  readonly #venue: string;
  readonly #rng: Rng;
  #seq = 0;

  constructor(venue: string, rng: Rng) {
    this.#venue = venue;
    this.#rng = rng;
    this.#seq = 100_000 + rng.int(900_000);
  }

  next(): string {
    this.#seq++;
    switch (this.#venue) {
      case 'bybit':
        return this.#rng.uuid();
      case 'deribit':
        return String(300_000_000 + this.#seq);
      case 'derive':
        return this.#rng.uuid();
      case 'bullish':
        // 18-digit ids as Bullish prints them (beyond 2^53: built as a string).
        return `100118${String(this.#seq).padStart(12, '0')}`;
      default:
        return String(this.#seq);
    }
  }
}
