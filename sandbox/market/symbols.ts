import type { MarketSymbol } from '#schemas/events.ts';

/** Per-underlying parameters of the simulated market. */
export interface SymbolParams {
  readonly base: string;
  readonly startPrice: number;
  /** Long-run ATM implied vol (fraction); the vol index mean-reverts to it. */
  readonly volLevel: number;
  /** Vol of the vol index (fraction per sqrt(year)). */
  readonly volOfVol: number;
  /** Jumps per day and log-size sd. */
  readonly jumpsPerDay: number;
  readonly jumpSd: number;
  /** Smile: skew (slope in standardized log-moneyness) and curvature. */
  readonly skew: number;
  readonly curvature: number;
  /** Annualized carry of futures/forwards over spot. */
  readonly carry: number;
  /** Price decimals of index / perp / spot prices. */
  readonly priceDecimals: number;
  /** Whether a DVOL-like index is published (BTC, ETH on Deribit). */
  readonly volIndex: boolean;
  /** Median USD notional of an option trade and of a perp trade. */
  readonly optionNotionalUsd: number;
  readonly perpNotionalUsd: number;
  /** Activity weight (relative trade rates). */
  readonly activity: number;
}

export const SYMBOL_PARAMS: Readonly<Record<MarketSymbol, SymbolParams>> = {
  BTCUSDT: {
    base: 'BTC',
    startPrice: 95_000,
    volLevel: 0.52,
    volOfVol: 0.9,
    jumpsPerDay: 2,
    jumpSd: 0.012,
    skew: -0.1,
    curvature: 0.08,
    carry: 0.06,
    priceDecimals: 1,
    volIndex: true,
    optionNotionalUsd: 60_000,
    perpNotionalUsd: 15_000,
    activity: 1,
  },
  ETHUSDT: {
    base: 'ETH',
    startPrice: 3_500,
    volLevel: 0.66,
    volOfVol: 1.0,
    jumpsPerDay: 2,
    jumpSd: 0.015,
    skew: -0.09,
    curvature: 0.08,
    carry: 0.06,
    priceDecimals: 2,
    volIndex: true,
    optionNotionalUsd: 30_000,
    perpNotionalUsd: 8_000,
    activity: 0.7,
  },
  SOLUSDT: {
    base: 'SOL',
    startPrice: 180,
    volLevel: 0.8,
    volOfVol: 1.2,
    jumpsPerDay: 3,
    jumpSd: 0.02,
    skew: -0.06,
    curvature: 0.09,
    carry: 0.08,
    priceDecimals: 3,
    volIndex: false,
    optionNotionalUsd: 12_000,
    perpNotionalUsd: 4_000,
    activity: 0.35,
  },
  HYPEUSDT: {
    base: 'HYPE',
    startPrice: 35,
    volLevel: 0.95,
    volOfVol: 1.4,
    jumpsPerDay: 4,
    jumpSd: 0.025,
    skew: -0.05,
    curvature: 0.1,
    carry: 0.1,
    priceDecimals: 4,
    volIndex: false,
    optionNotionalUsd: 8_000,
    perpNotionalUsd: 3_000,
    activity: 0.25,
  },
};

export function roundTo(x: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round(x * f) / f;
}

/** Round to a tick (e.g. 0.0005), keeping a clean decimal representation. */
export function roundTick(x: number, tick: number): number {
  const decimals = Math.max(0, Math.ceil(-Math.log10(tick)) + 1);
  return roundTo(Math.round(x / tick) * tick, decimals);
}
