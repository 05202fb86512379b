/**
 * The top-of-book fields of an option ticker (schemas/families.ts: the fields added in migration 050), from what
 * a venue publishes. Prices stay as quoted in `priceCurrency` (per coin of underlying) and are converted to USD
 * with `usdPerUnit` (1 for USD/stablecoin quotes, the index price for coin quotes; null when unknown). Sizes must
 * already be in coins. What the venue does not publish is null.
 */
import type { OptionTicker } from '#schemas/events.ts';
import { isUsd, mul } from './parse-helpers.ts';

export interface QuotedBook {
  readonly priceCurrency: string;
  readonly bid?: number | null;
  readonly ask?: number | null;
  readonly bidSize?: number | null;
  readonly askSize?: number | null;
  readonly last?: number | null;
  readonly volume24h?: number | null;
}

export type TickerBook = Required<
  Pick<
    OptionTicker,
    | 'priceCurrency'
    | 'bidPrice'
    | 'askPrice'
    | 'bidPriceUsd'
    | 'askPriceUsd'
    | 'bidSize'
    | 'askSize'
    | 'lastPrice'
    | 'lastPriceUsd'
    | 'volume24h'
  >
>;

/** USD per unit of `priceCurrency`: 1 for USD and stablecoins, else the index price (null when not known). */
export function usdPerUnit(priceCurrency: string, indexPrice: number | null): number | null {
  return isUsd(priceCurrency) ? 1 : indexPrice;
}

/** A bid or ask of 0 means an empty side on every venue that sends it: null. */
function side(p: number | null | undefined): number | null {
  return p === undefined || p === null || p <= 0 ? null : p;
}

export function tickerBook(q: QuotedBook, usdRate: number | null): TickerBook {
  const bid = side(q.bid);
  const ask = side(q.ask);
  const last = side(q.last);
  const usd = (p: number | null): number | null => (p === null || usdRate === null ? null : usdRate === 1 ? p : mul(p, usdRate));
  return {
    priceCurrency: q.priceCurrency,
    bidPrice: bid,
    askPrice: ask,
    bidPriceUsd: usd(bid),
    askPriceUsd: usd(ask),
    bidSize: bid === null ? null : (q.bidSize ?? null),
    askSize: ask === null ? null : (q.askSize ?? null),
    lastPrice: last,
    lastPriceUsd: usd(last),
    volume24h: q.volume24h ?? null,
  };
}
