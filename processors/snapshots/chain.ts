/**
 * Pure step: one symbol's state at a tick → the engine's ChainSnapshot (tagged result).
 * - spot = median of the fresh index prices (md.index, kind 'index', one per venue and index name); without
 *   any, the median of the fresh tickers' index prices; without either the tick has no chain.
 * - perp price = mean of the fresh perp marks (md.perp_stats), null when none.
 * - instruments: fresh tickers (ts ≥ tick − tickerFreshnessMs) of contracts not expired at the tick and not
 *   delisted, each field group (ticker-merge.ts) older than the window nulled; forward = the ticker's underlying
 *   price, else its index price, else spot; OI null → 0.
 * - dealer inventory (flow model) is attached from `inventory` (key venue|instrument) when measured.
 */
import type { MarketSymbol } from '#schemas/events.ts';
import type { ChainInstrument, ChainSnapshot } from '../analytics/types.ts';
import type { PricePoint, SymbolState, TickerState } from './state.ts';
import { instrumentKey } from './state.ts';
import { freshAt } from './ticker-merge.ts';

export interface ChainOptions {
  readonly tickerFreshnessMs: number;
  readonly priceFreshnessMs: number;
}

/** Chain instrument plus its venue name, for inventory statistics. */
export interface NamedInstrument extends ChainInstrument {
  readonly instrument: string;
  /** The ticker the instrument was built from (quote and time, for the consolidated chain). */
  readonly ticker: TickerState;
}

export type ChainResult =
  | { readonly kind: 'chain'; readonly chain: ChainSnapshot; readonly instruments: readonly NamedInstrument[] }
  | { readonly kind: 'no_spot' }
  | { readonly kind: 'no_instruments' };

export function median(values: readonly number[]): number | null {
  const v = values.filter((x) => Number.isFinite(x) && x > 0).sort((a, b) => a - b);
  if (v.length === 0) return null;
  const mid = v.length >> 1;
  return v.length % 2 === 1 ? (v[mid] as number) : ((v[mid - 1] as number) + (v[mid] as number)) / 2;
}

function fresh(points: readonly PricePoint[], tick: number, windowMs: number): number[] {
  return points.filter((p) => p.ts >= tick - windowMs && p.value > 0 && Number.isFinite(p.value)).map((p) => p.value);
}

export function spotOf(state: SymbolState, tickers: readonly TickerState[], tick: number, o: ChainOptions): number | null {
  return (
    median(fresh(state.index, tick, o.priceFreshnessMs)) ?? median(tickers.flatMap((t) => (t.indexPrice === null ? [] : [t.indexPrice])))
  );
}

export function perpPriceOf(state: SymbolState, tick: number, o: ChainOptions): number | null {
  const marks = fresh(state.perps, tick, o.priceFreshnessMs);
  if (marks.length === 0) return null;
  let sum = 0;
  for (const m of marks) sum += m;
  return sum / marks.length;
}

export function buildChain(
  symbol: MarketSymbol,
  state: SymbolState,
  tick: number,
  o: ChainOptions,
  inventory: ReadonlyMap<string, number> = new Map(),
): ChainResult {
  const tickers = state.tickers
    .filter((t) => {
      if (t.ts < tick - o.tickerFreshnessMs || t.expiry <= tick) return false;
      const off = state.inactive.get(instrumentKey(t.venue, t.instrument));
      return off === undefined || off < t.ts;
    })
    .map((t) => freshAt(t, tick, o.tickerFreshnessMs));
  const spot = spotOf(state, tickers, tick, o);
  if (spot === null) return { kind: 'no_spot' };
  if (tickers.length === 0) return { kind: 'no_instruments' };
  const instruments: NamedInstrument[] = tickers.map((t) => {
    const inv = inventory.get(instrumentKey(t.venue, t.instrument));
    const forward = t.underlyingPrice ?? t.indexPrice ?? spot;
    return {
      venue: t.venue,
      instrument: t.instrument,
      ticker: t,
      strike: t.strike,
      expiry: t.expiry,
      type: t.type,
      openInterest: t.openInterest ?? 0,
      markIv: t.markIv,
      forward: forward > 0 ? forward : spot,
      ...(inv !== undefined ? { dealerInventory: inv } : {}),
    };
  });
  return { kind: 'chain', chain: { symbol, now: tick, spot, perpPrice: perpPriceOf(state, tick, o), instruments }, instruments };
}
