/**
 * The consolidated option chain (/v2/options/chain) from the stored per-venue chain rows of one tick
 * (option_chain_snapshots). One row per (expiry instant, strike, type); rules:
 * - best bid = the highest venue bid (USD per coin), best ask = the lowest venue ask; ties → the larger size, then
 *   the venue name; `bid_iv` / `ask_iv` are the IVs the venue holding that side publishes (null when it does not).
 * - mark price, mark IV, forward and the four greeks = weighted means over the venues that have the value, weights =
 *   each venue's open interest (coins), equal weights when the contract's total OI is 0.
 * - open interest = the sum over venues (coins); 24 h volume = the sum over the venues that publish it (null when
 *   none does); trade count and notional volume (USD premium paid) = the sums over venues of the per-venue trade
 *   figures attached by chain-trades.ts (null when none is attached); `greeks_source` per greek: venue / computed
 *   when every contributing venue agrees, mixed, or none.
 * Pure: no I/O. Units as option_chain_snapshots (clickhouse/migrations/059).
 */
import type { OptionType } from '#schemas/events.ts';
import { yearFraction } from './black76.ts';
import type { ChainSnapshot } from './types.ts';

export type QuoteGreekSource = 'none' | 'venue' | 'computed';

/** The stored chain row fields this module reads (a structural subset of OptionChainRow). */
export interface ChainQuoteRow {
  readonly venue: string;
  readonly instrument: string;
  readonly expiry: number;
  readonly strike: number;
  readonly option_type: OptionType;
  readonly t_years: number;
  readonly forward: number;
  readonly bid_price_usd: number | null;
  readonly ask_price_usd: number | null;
  readonly bid_size: number | null;
  readonly ask_size: number | null;
  readonly mark_price_usd: number | null;
  readonly last_price_usd: number | null;
  readonly mark_iv: number | null;
  readonly bid_iv: number | null;
  readonly ask_iv: number | null;
  readonly delta: number | null;
  readonly gamma: number | null;
  readonly vega: number | null;
  readonly theta: number | null;
  readonly delta_source: string;
  readonly gamma_source: string;
  readonly vega_source: string;
  readonly theta_source: string;
  readonly open_interest: number;
  readonly volume_24h: number | null;
  /** Trades of the venue's contract in the chain's trade window (chain-trades.ts); absent when not read. */
  readonly trade_count?: number;
  /** Premium paid in those trades, USD (Σ size × price); absent when not read. */
  readonly notional_volume?: number;
}

export const QUOTE_GREEKS = ['delta', 'gamma', 'vega', 'theta'] as const;
export type QuoteGreek = (typeof QUOTE_GREEKS)[number];

export interface BookSide {
  readonly venue: string;
  readonly price_usd: number;
  readonly size: number | null;
  readonly iv: number | null;
}

export interface ConsolidatedQuote {
  readonly expiry: number;
  readonly strike: number;
  readonly type: OptionType;
  readonly t_years: number;
  readonly forward: number;
  readonly bid: BookSide | null;
  readonly ask: BookSide | null;
  readonly mark_usd: number | null;
  readonly mark_iv: number | null;
  readonly open_interest: number;
  readonly volume_24h: number | null;
  /** Σ over venues of trade_count; null when no venue row carries it. */
  readonly trade_count: number | null;
  /** Σ over venues of notional_volume (USD premium paid); null when no venue row carries it. */
  readonly notional_volume: number | null;
  readonly delta: number | null;
  readonly gamma: number | null;
  readonly vega: number | null;
  readonly theta: number | null;
  readonly greeks_source: Readonly<Record<QuoteGreek, QuoteGreekSource | 'mixed'>>;
  /** The per-venue rows, in venue order. */
  readonly venues: readonly ChainQuoteRow[];
}

export function contractKey(r: { readonly expiry: number; readonly strike: number; readonly option_type: OptionType }): string {
  return `${r.expiry}|${r.strike}|${r.option_type}`;
}

const TYPE_ORDER: Readonly<Record<OptionType, number>> = { call: 0, put: 1 };

/** Expiry, then strike, then call before put. */
export function compareContracts(
  a: { expiry: number; strike: number; type: OptionType },
  b: { expiry: number; strike: number; type: OptionType },
): number {
  return a.expiry - b.expiry || a.strike - b.strike || TYPE_ORDER[a.type] - TYPE_ORDER[b.type];
}

/** Rows grouped per contract, venues sorted by name inside a group. */
export function groupByContract(rows: readonly ChainQuoteRow[]): ChainQuoteRow[][] {
  const groups = new Map<string, ChainQuoteRow[]>();
  for (const r of rows) {
    const k = contractKey(r);
    const g = groups.get(k);
    if (g === undefined) groups.set(k, [r]);
    else g.push(r);
  }
  for (const g of groups.values()) g.sort((a, b) => (a.venue < b.venue ? -1 : a.venue > b.venue ? 1 : 0));
  return [...groups.values()];
}

/** Weighted mean of a field over the rows that have it (OI weights; equal weights when the OI sum is 0). */
export function weightedMean(rows: readonly ChainQuoteRow[], value: (r: ChainQuoteRow) => number | null): number | null {
  const have = rows.filter((r) => {
    const v = value(r);
    return v !== null && Number.isFinite(v);
  });
  if (have.length === 0) return null;
  const oi = have.reduce((s, r) => s + Math.max(0, r.open_interest), 0);
  let num = 0;
  let den = 0;
  for (const r of have) {
    const w = oi > 0 ? Math.max(0, r.open_interest) : 1;
    num += w * (value(r) as number);
    den += w;
  }
  return den > 0 ? num / den : null;
}

function better(side: 'bid' | 'ask', a: BookSide, b: BookSide): boolean {
  if (a.price_usd !== b.price_usd) return side === 'bid' ? a.price_usd > b.price_usd : a.price_usd < b.price_usd;
  const sa = a.size ?? 0;
  const sb = b.size ?? 0;
  if (sa !== sb) return sa > sb;
  return a.venue < b.venue;
}

/** The best bid or ask across venues, null when no venue quotes that side. */
export function bestSide(rows: readonly ChainQuoteRow[], side: 'bid' | 'ask'): BookSide | null {
  let best: BookSide | null = null;
  for (const r of rows) {
    const price = side === 'bid' ? r.bid_price_usd : r.ask_price_usd;
    if (price === null || !(price > 0)) continue;
    const cand: BookSide = {
      venue: r.venue,
      price_usd: price,
      size: side === 'bid' ? r.bid_size : r.ask_size,
      iv: side === 'bid' ? r.bid_iv : r.ask_iv,
    };
    if (best === null || better(side, cand, best)) best = cand;
  }
  return best;
}

function sourceOf(rows: readonly ChainQuoteRow[], greek: QuoteGreek): QuoteGreekSource | 'mixed' {
  const used = new Set(rows.filter((r) => r[greek] !== null).map((r) => r[`${greek}_source`]));
  if (used.size === 0) return 'none';
  if (used.size > 1) return 'mixed';
  return [...used][0] === 'venue' ? 'venue' : 'computed';
}

/** The OI-weighted means of the averaged fields in one pass (weightedMean's rule per field). */
const AVERAGED = ['forward', 'mark_price_usd', 'mark_iv', 'delta', 'gamma', 'vega', 'theta'] as const;
type Averaged = (typeof AVERAGED)[number];

function weightedMeans(rows: readonly ChainQuoteRow[]): Record<Averaged, number | null> {
  const n = AVERAGED.length;
  const sumW = new Float64Array(n);
  const sumWx = new Float64Array(n);
  const sumX = new Float64Array(n);
  const count = new Float64Array(n);
  for (const r of rows) {
    const w = Math.max(0, r.open_interest);
    for (let i = 0; i < n; i++) {
      const v = r[AVERAGED[i] as Averaged];
      if (v === null || !Number.isFinite(v)) continue;
      sumW[i] = (sumW[i] as number) + w;
      sumWx[i] = (sumWx[i] as number) + w * v;
      sumX[i] = (sumX[i] as number) + v;
      count[i] = (count[i] as number) + 1;
    }
  }
  const out = {} as Record<Averaged, number | null>;
  for (let i = 0; i < n; i++) {
    const c = count[i] as number;
    const w = sumW[i] as number;
    out[AVERAGED[i] as Averaged] = c === 0 ? null : w > 0 ? (sumWx[i] as number) / w : (sumX[i] as number) / c;
  }
  return out;
}

export function consolidateContract(venues: readonly ChainQuoteRow[]): ConsolidatedQuote {
  const first = venues[0] as ChainQuoteRow;
  const m = weightedMeans(venues);
  let volume: number | null = null;
  let oi = 0;
  let trades: number | null = null;
  let premium: number | null = null;
  for (const r of venues) {
    oi += r.open_interest;
    if (r.volume_24h !== null && Number.isFinite(r.volume_24h)) volume = (volume ?? 0) + r.volume_24h;
    if (r.trade_count !== undefined) trades = (trades ?? 0) + r.trade_count;
    if (r.notional_volume !== undefined) premium = (premium ?? 0) + r.notional_volume;
  }
  return {
    expiry: first.expiry,
    strike: first.strike,
    type: first.option_type,
    t_years: first.t_years,
    forward: m.forward ?? first.forward,
    bid: bestSide(venues, 'bid'),
    ask: bestSide(venues, 'ask'),
    mark_usd: m.mark_price_usd,
    mark_iv: m.mark_iv,
    open_interest: oi,
    volume_24h: volume,
    trade_count: trades,
    notional_volume: premium,
    delta: m.delta,
    gamma: m.gamma,
    vega: m.vega,
    theta: m.theta,
    greeks_source: {
      delta: sourceOf(venues, 'delta'),
      gamma: sourceOf(venues, 'gamma'),
      vega: sourceOf(venues, 'vega'),
      theta: sourceOf(venues, 'theta'),
    },
    venues,
  };
}

/** The contracts a filter keeps, consolidated, in (expiry, strike, call/put) order. */
export function consolidateChain(rows: readonly ChainQuoteRow[], f: ChainFilter = {}): ConsolidatedQuote[] {
  return selectContracts(rows, f).map(consolidateContract);
}

export interface ChainFilter {
  /** Expiry UTC days (ms at 00:00); empty = all. */
  readonly expiryDays?: readonly number[];
  readonly type?: OptionType;
  readonly strikeMin?: number;
  readonly strikeMax?: number;
  /** Keep |K / F − 1| ≤ moneyness, F = the contract's consolidated (OI-weighted) forward. */
  readonly moneyness?: number;
}

const DAY_MS = 86_400_000;

/** The contracts a filter keeps, each with all its venue rows (venue order), in (expiry, strike, call/put) order. */
export function selectContracts(rows: readonly ChainQuoteRow[], f: ChainFilter): ChainQuoteRow[][] {
  const days = f.expiryDays === undefined || f.expiryDays.length === 0 ? null : f.expiryDays;
  const kept = rows.filter(
    (r) =>
      (days === null || days.some((d) => r.expiry >= d && r.expiry < d + DAY_MS)) &&
      (f.type === undefined || r.option_type === f.type) &&
      (f.strikeMin === undefined || r.strike >= f.strikeMin) &&
      (f.strikeMax === undefined || r.strike <= f.strikeMax),
  );
  const groups = groupByContract(kept).filter((g) => {
    if (f.moneyness === undefined) return true;
    const forward = weightedMean(g, (r) => r.forward) ?? (g[0] as ChainQuoteRow).forward;
    return Math.abs((g[0] as ChainQuoteRow).strike / forward - 1) <= f.moneyness;
  });
  const key = (g: readonly ChainQuoteRow[]): { expiry: number; strike: number; type: OptionType } => {
    const r = g[0] as ChainQuoteRow;
    return { expiry: r.expiry, strike: r.strike, type: r.option_type };
  };
  return groups.sort((a, b) => compareContracts(key(a), key(b)));
}

/** A `gex levels --chain` file's instruments as chain rows (that format has no book: bid/ask and greeks null). */
export function chainFileRows(chain: ChainSnapshot): ChainQuoteRow[] {
  return chain.instruments.map((i, n) => ({
    venue: i.venue,
    instrument: `${i.venue}-${n}`,
    expiry: i.expiry,
    strike: i.strike,
    option_type: i.type,
    t_years: yearFraction(i.expiry, chain.now),
    forward: i.forward,
    bid_price_usd: null,
    ask_price_usd: null,
    bid_size: null,
    ask_size: null,
    mark_price_usd: null,
    last_price_usd: null,
    mark_iv: i.markIv,
    bid_iv: null,
    ask_iv: null,
    delta: null,
    gamma: null,
    vega: null,
    theta: null,
    delta_source: 'none',
    gamma_source: 'none',
    vega_source: 'none',
    theta_source: 'none',
    open_interest: i.openInterest,
    volume_24h: null,
  }));
}
