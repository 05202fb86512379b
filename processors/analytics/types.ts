/** Shared input types of the pure GEX engine. Units: prices USD per coin, sizes in coins, IV fractions, ms UTC. */
import type { MarketSymbol, OptionType, Venue } from '#schemas/events.ts';

export type DealerModel = 'std' | 'flow';

/** One option contract of a chain snapshot. */
export interface ChainInstrument {
  readonly venue: Venue;
  readonly strike: number;
  /** Expiry instant, ms UTC. */
  readonly expiry: number;
  readonly type: OptionType;
  /** Open interest in coins of underlying. */
  readonly openInterest: number;
  /** Mark IV as a fraction; null/0/non-finite rows are skipped and counted. */
  readonly markIv: number | null;
  /** The expiry's forward (venue underlying price), USD. */
  readonly forward: number;
  /** Dealer net inventory in coins (flow model input; sign included). Undefined = not measured. */
  readonly dealerInventory?: number | undefined;
}

/** A whole-chain snapshot for one symbol at one instant. */
export interface ChainSnapshot {
  readonly symbol: MarketSymbol;
  /** Snapshot instant, ms UTC. All T are measured from here. */
  readonly now: number;
  /** Common spot (cross-venue index), USD. Scales every expiry's GEX. */
  readonly spot: number;
  readonly perpPrice: number | null;
  readonly instruments: readonly ChainInstrument[];
}
