/** The snapshot processor's option ticker state (units as the OptionTicker family; null = not published). */
import type { OptionType, Venue } from '#schemas/events.ts';

/** Field groups of a ticker merged independently (ticker-merge.ts). */
export const TICKER_GROUPS = ['pricing', 'oi', 'book', 'index'] as const;
export type TickerGroup = (typeof TICKER_GROUPS)[number];
export type GroupTimes = Readonly<Record<TickerGroup, number | null>>;

export interface TickerState {
  readonly venue: Venue;
  readonly instrument: string;
  /** Venue event time, ms. */
  readonly ts: number;
  readonly strike: number;
  readonly expiry: number;
  readonly type: OptionType;
  readonly markIv: number | null;
  /** Coins. */
  readonly openInterest: number | null;
  readonly underlyingPrice: number | null;
  readonly indexPrice: number | null;
  /** Book, last price, volume, the other IVs and the venue's greeks: kept for the consolidated chain. */
  readonly quote?: TickerQuote;
  /** Venue time of the row each field group came from (ticker-merge.ts); absent on a single unmerged row. */
  readonly groupTimes?: GroupTimes;
}

/** The ticker fields only the consolidated chain reads (units as the OptionTicker family; null = not published). */
export interface TickerQuote {
  /** USD per coin. */
  readonly markPrice: number | null;
  readonly bidIv: number | null;
  readonly askIv: number | null;
  readonly delta: number | null;
  readonly gamma: number | null;
  readonly vega: number | null;
  readonly theta: number | null;
  /** USD per coin. */
  readonly bidPriceUsd: number | null;
  readonly askPriceUsd: number | null;
  readonly lastPriceUsd: number | null;
  /** Coins. */
  readonly bidSize: number | null;
  readonly askSize: number | null;
  readonly volume24h: number | null;
}

/** The quote part of an option ticker event or stored row (absent optional fields → null). */
export function quoteOf(e: {
  readonly markPrice?: number | null;
  readonly bidIv?: number | null;
  readonly askIv?: number | null;
  readonly delta?: number | null;
  readonly gamma?: number | null;
  readonly vega?: number | null;
  readonly theta?: number | null;
  readonly bidPriceUsd?: number | null;
  readonly askPriceUsd?: number | null;
  readonly lastPriceUsd?: number | null;
  readonly bidSize?: number | null;
  readonly askSize?: number | null;
  readonly volume24h?: number | null;
}): TickerQuote {
  return {
    markPrice: e.markPrice ?? null,
    bidIv: e.bidIv ?? null,
    askIv: e.askIv ?? null,
    delta: e.delta ?? null,
    gamma: e.gamma ?? null,
    vega: e.vega ?? null,
    theta: e.theta ?? null,
    bidPriceUsd: e.bidPriceUsd ?? null,
    askPriceUsd: e.askPriceUsd ?? null,
    lastPriceUsd: e.lastPriceUsd ?? null,
    bidSize: e.bidSize ?? null,
    askSize: e.askSize ?? null,
    volume24h: e.volume24h ?? null,
  };
}
