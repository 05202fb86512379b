/**
 * What a /v2/tape page asks for (window, filters) and what it returns, shared by the store read (read.ts) and the
 * in-memory tail (tail.ts), with the one definition of which trade a filter keeps. Pure.
 */
import type { MarketSymbol } from '#schemas/events.ts';
import type { TapeRow } from './tape-row.ts';

export interface TapeFilter {
  readonly symbol: MarketSymbol;
  /** Window [fromMs, toMs], both ends included (trade time). */
  readonly fromMs: number;
  readonly toMs: number;
  /** Empty: every venue. */
  readonly venues: readonly string[];
  /** Expiry dates `YYYY-MM-DD` (UTC day of the expiry instant); empty: all. */
  readonly expiryDates: readonly string[];
  readonly type: 'call' | 'put' | null;
  readonly side: 'buy' | 'sell' | null;
  /** 0: no premium filter (a trade with a NaN premium is kept only then, as in the store's WHERE). */
  readonly minPremiumUsd: number;
  readonly block: 'only' | 'exclude' | null;
}

/** Every trade of a symbol in [fromMs, toMs]: no venue, expiry, type, side, premium or block filter. */
export function allTrades(symbol: MarketSymbol, fromMs: number, toMs: number): TapeFilter {
  return { symbol, fromMs, toMs, venues: [], expiryDates: [], type: null, side: null, minPremiumUsd: 0, block: null };
}

export interface TapePage {
  readonly trades: TapeRow[];
  readonly nextCursor: string | null;
}

/** The UTC date (`YYYY-MM-DD`) of an instant in ms: the key of the expiry filter. */
export const utcDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/**
 * Whether a trade passes the filter's venue, expiry, type, side, premium and block conditions (not the window):
 * the same predicate as the store read's WHERE clause (read.ts), including IEEE comparisons (`NaN >= x` is false).
 */
export function keeps(f: TapeFilter, row: TapeRow, expiryDate: string): boolean {
  if (f.venues.length > 0 && !f.venues.includes(row.venue)) return false;
  if (f.expiryDates.length > 0 && !f.expiryDates.includes(expiryDate)) return false;
  if (f.type !== null && row.type !== f.type) return false;
  if (f.side !== null && row.side !== f.side) return false;
  if (f.minPremiumUsd > 0 && !(row.premium_usd >= f.minPremiumUsd)) return false;
  if (f.block === 'only' && !row.block) return false;
  if (f.block === 'exclude' && row.block) return false;
  return true;
}
