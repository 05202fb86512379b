/**
 * The venue book (/v2/options/venue-book): per contract the top of book on every venue that lists it, each venue's
 * spread in USD and in basis points of its own mark (of its mid when it publishes no mark), the best bid and best ask
 * across venues (chain-quotes.ts rules) and the consolidated spread: best ask − best bid, in USD and in bps of the
 * consolidated mark (negative = the venues' books cross). A spread needs both sides; one-sided contracts have null
 * spreads and sort last. Sorts: `spread_bps` (tightest first, the default), `spread_usd`, `strike` (expiry, strike,
 * call/put order). Pure.
 */
import type { OptionType } from '#schemas/events.ts';
import { bestSide, weightedMean } from './chain-quotes.ts';
import type { BookSide, ChainQuoteRow } from './chain-quotes.ts';

export const VENUE_BOOK_SORTS = ['spread_bps', 'spread_usd', 'strike'] as const;
export type VenueBookSort = (typeof VENUE_BOOK_SORTS)[number];

export interface VenueQuote {
  readonly venue: string;
  readonly instrument: string;
  readonly bid_usd: number | null;
  readonly bid_size: number | null;
  readonly ask_usd: number | null;
  readonly ask_size: number | null;
  readonly mark_usd: number | null;
  readonly spread_usd: number | null;
  readonly spread_bps: number | null;
}

export interface VenueBookRow {
  readonly expiry: number;
  readonly strike: number;
  readonly type: OptionType;
  readonly mark_usd: number | null;
  readonly best_bid: BookSide | null;
  readonly best_ask: BookSide | null;
  readonly spread_usd: number | null;
  readonly spread_bps: number | null;
  readonly crossed: boolean;
  readonly venues: readonly VenueQuote[];
}

const positive = (x: number | null): number | null => (x !== null && Number.isFinite(x) && x > 0 ? x : null);

/** Spread in bps of a reference price (null without both sides or a positive reference). */
export function spreadBps(bid: number | null, ask: number | null, reference: number | null): number | null {
  if (bid === null || ask === null || reference === null || !(reference > 0)) return null;
  return ((ask - bid) / reference) * 10_000;
}

export function venueQuote(r: ChainQuoteRow): VenueQuote {
  const bid = positive(r.bid_price_usd);
  const ask = positive(r.ask_price_usd);
  const mark = positive(r.mark_price_usd);
  const reference = mark ?? (bid !== null && ask !== null ? (bid + ask) / 2 : null);
  return {
    venue: r.venue,
    instrument: r.instrument,
    bid_usd: bid,
    bid_size: bid === null ? null : r.bid_size,
    ask_usd: ask,
    ask_size: ask === null ? null : r.ask_size,
    mark_usd: mark,
    spread_usd: bid !== null && ask !== null ? ask - bid : null,
    spread_bps: spreadBps(bid, ask, reference),
  };
}

/** One contract (its venue rows, venue order). */
export function venueBookRow(venues: readonly ChainQuoteRow[]): VenueBookRow {
  const first = venues[0] as ChainQuoteRow;
  const bestBid = bestSide(venues, 'bid');
  const bestAsk = bestSide(venues, 'ask');
  const mark = weightedMean(venues, (r) => positive(r.mark_price_usd));
  const bid = bestBid?.price_usd ?? null;
  const ask = bestAsk?.price_usd ?? null;
  const reference = mark ?? (bid !== null && ask !== null ? (bid + ask) / 2 : null);
  return {
    expiry: first.expiry,
    strike: first.strike,
    type: first.option_type,
    mark_usd: mark,
    best_bid: bestBid,
    best_ask: bestAsk,
    spread_usd: bid !== null && ask !== null ? ask - bid : null,
    spread_bps: spreadBps(bid, ask, reference),
    crossed: bid !== null && ask !== null && bid > ask,
    venues: venues.map(venueQuote),
  };
}

const nullsLast = (a: number | null, b: number | null): number => (a === null ? (b === null ? 0 : 1) : b === null ? -1 : a - b);

/** Rows sorted; contract order (expiry, strike, call/put) breaks ties. `contracts` are in that order already. */
export function venueBook(contracts: readonly (readonly ChainQuoteRow[])[], sort: VenueBookSort): VenueBookRow[] {
  const rows = contracts.map(venueBookRow);
  if (sort === 'strike') return rows;
  const key = (r: VenueBookRow): number | null => (sort === 'spread_bps' ? r.spread_bps : r.spread_usd);
  return rows
    .map((r, i) => ({ r, i }))
    .sort((a, b) => nullsLast(key(a.r), key(b.r)) || a.i - b.i)
    .map((x) => x.r);
}
