/**
 * Option ticker rows merged per field group. Some venues publish an option's fields on separate channels, each
 * row carrying only its own fields (OKX: `opt-summary` IVs/greeks/forward, `open-interest` OI, `tickers` book;
 * Binance: `markPrice` IVs/greeks/book, `openInterest` OI). Keeping only the newest row would drop the IV after an
 * OI row and the OI after an IV row (the contract would leave GEX or count zero OI). So the state keeps, per
 * instrument and group, the newest row that carries the group, with that row's time:
 *   pricing: mark IV, mark price, bid/ask IV, the four greeks, underlying (forward) price
 *   oi:      open interest
 *   book:    bid/ask price and size (USD per coin, coins), last price, 24 h volume
 *   index:   index price
 * A row carries a group when any of its fields is non-null. A group older than the ticker freshness window at a
 * tick is treated as absent (`freshAt`), so a venue that stops sending one channel does not keep stale values.
 * Venues that send whole rows are unaffected (every row carries every group), except that a row with a whole group
 * null (e.g. both book sides empty) keeps the previous values of that group until they go stale.
 */
import { TICKER_GROUPS } from './ticker-state.ts';
import type { GroupTimes, TickerGroup, TickerQuote, TickerState } from './ticker-state.ts';

export { TICKER_GROUPS };
export type { GroupTimes, TickerGroup };

const EMPTY_QUOTE: TickerQuote = {
  markPrice: null,
  bidIv: null,
  askIv: null,
  delta: null,
  gamma: null,
  vega: null,
  theta: null,
  bidPriceUsd: null,
  askPriceUsd: null,
  lastPriceUsd: null,
  bidSize: null,
  askSize: null,
  volume24h: null,
};

const some = (...xs: readonly (number | null)[]): boolean => xs.some((x) => x !== null);

/** Which groups a row carries. */
export function carried(t: TickerState): Readonly<Record<TickerGroup, boolean>> {
  const q = t.quote ?? EMPTY_QUOTE;
  return {
    pricing: some(t.markIv, t.underlyingPrice, q.markPrice, q.bidIv, q.askIv, q.delta, q.gamma, q.vega, q.theta),
    oi: t.openInterest !== null,
    book: some(q.bidPriceUsd, q.askPriceUsd, q.bidSize, q.askSize, q.lastPriceUsd, q.volume24h),
    index: t.indexPrice !== null,
  };
}

function pick(
  group: TickerGroup,
  from: TickerState,
  into: { -readonly [K in keyof TickerState]: TickerState[K] },
  quote: { -readonly [K in keyof TickerQuote]: TickerQuote[K] },
): void {
  const q = from.quote ?? EMPTY_QUOTE;
  switch (group) {
    case 'pricing':
      into.markIv = from.markIv;
      into.underlyingPrice = from.underlyingPrice;
      Object.assign(quote, {
        markPrice: q.markPrice,
        bidIv: q.bidIv,
        askIv: q.askIv,
        delta: q.delta,
        gamma: q.gamma,
        vega: q.vega,
        theta: q.theta,
      });
      return;
    case 'oi':
      into.openInterest = from.openInterest;
      return;
    case 'book':
      Object.assign(quote, {
        bidPriceUsd: q.bidPriceUsd,
        askPriceUsd: q.askPriceUsd,
        bidSize: q.bidSize,
        askSize: q.askSize,
        lastPriceUsd: q.lastPriceUsd,
        volume24h: q.volume24h,
      });
      return;
    case 'index':
      into.indexPrice = from.indexPrice;
      return;
  }
}

const NO_TIMES: GroupTimes = { pricing: null, oi: null, book: null, index: null };

/** `next` merged onto `cur` group by group (the newer row of each group wins; ties go to `next`). */
export function mergeTicker(cur: TickerState | undefined, next: TickerState): TickerState {
  const has = carried(next);
  const before = cur?.groupTimes ?? NO_TIMES;
  const out: { -readonly [K in keyof TickerState]: TickerState[K] } =
    cur === undefined
      ? { ...next, markIv: null, openInterest: null, underlyingPrice: null, indexPrice: null }
      : { ...cur, strike: next.strike, expiry: next.expiry, type: next.type, ts: Math.max(cur.ts, next.ts) };
  const quote: { -readonly [K in keyof TickerQuote]: TickerQuote[K] } = { ...(cur?.quote ?? EMPTY_QUOTE) };
  const times: { -readonly [K in TickerGroup]: number | null } = { ...before };
  for (const g of TICKER_GROUPS) {
    const at = before[g];
    if (has[g] && (at === null || next.ts >= at)) {
      pick(g, next, out, quote);
      times[g] = next.ts;
    }
  }
  out.quote = quote;
  out.groupTimes = times;
  return out;
}

/** The ticker as of a tick: groups older than `windowMs` (or never received) are null. */
export function freshAt(t: TickerState, tick: number, windowMs: number): TickerState {
  const times = t.groupTimes;
  if (times === undefined) return t;
  const fresh = (g: TickerGroup): boolean => times[g] !== null && (times[g] as number) >= tick - windowMs;
  if (TICKER_GROUPS.every(fresh)) return t;
  const out: { -readonly [K in keyof TickerState]: TickerState[K] } = { ...t };
  const quote: { -readonly [K in keyof TickerQuote]: TickerQuote[K] } = { ...(t.quote ?? EMPTY_QUOTE) };
  const blank: TickerState = { ...t, markIv: null, openInterest: null, underlyingPrice: null, indexPrice: null, quote: EMPTY_QUOTE };
  for (const g of TICKER_GROUPS) if (!fresh(g)) pick(g, blank, out, quote);
  out.quote = quote;
  return out;
}
