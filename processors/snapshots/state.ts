/**
 * In-memory market state of the snapshot processor, per symbol: the latest option ticker per (venue,
 * instrument) merged per field group (ticker-merge.ts: venues that send IV, OI and book on separate channels), the latest index
 * price per (venue, index name), the latest perp mark per (venue, instrument)
 * and the instruments a venue delisted. Updates are last-writer-wins on the venue timestamp, so redelivered
 * or reordered events never move the state backwards. The same structure is filled from the bus (live) and
 * from the raw tables (rebuild on start, catch-up of missed ticks as of an instant).
 */
import type { MarketEvent, MarketSymbol, Venue } from '#schemas/events.ts';
import { mergeTicker } from './ticker-merge.ts';
import type { TickerState } from './ticker-state.ts';

export type { TickerQuote, TickerState } from './ticker-state.ts';
import { quoteOf } from './ticker-state.ts';
export { quoteOf };

export interface PricePoint {
  readonly venue: Venue;
  /** Index name or perp instrument. */
  readonly name: string;
  readonly ts: number;
  readonly value: number;
}

export interface SymbolState {
  readonly tickers: readonly TickerState[];
  readonly index: readonly PricePoint[];
  readonly perps: readonly PricePoint[];
  /** `venue|instrument` → ts of the delisting (instrument event with active = false). */
  readonly inactive: ReadonlyMap<string, number>;
}

interface MutableSymbolState {
  readonly tickers: Map<string, TickerState>;
  readonly index: Map<string, PricePoint>;
  readonly perps: Map<string, PricePoint>;
  readonly inactive: Map<string, number>;
}

export function instrumentKey(venue: string, instrument: string): string {
  return `${venue}|${instrument}`;
}

function putLatest<T extends { readonly ts: number }>(map: Map<string, T>, key: string, value: T): void {
  const cur = map.get(key);
  if (cur === undefined || value.ts >= cur.ts) map.set(key, value);
}

export class MarketState {
  private readonly symbols = new Map<MarketSymbol, MutableSymbolState>();

  private of(symbol: MarketSymbol): MutableSymbolState {
    let s = this.symbols.get(symbol);
    if (s === undefined) {
      s = { tickers: new Map(), index: new Map(), perps: new Map(), inactive: new Map() };
      this.symbols.set(symbol, s);
    }
    return s;
  }

  /** A ticker already merged (rebuilt from the raw tables with its group times): replaces what the state has. */
  setTicker(symbol: MarketSymbol, t: TickerState): void {
    this.of(symbol).tickers.set(instrumentKey(t.venue, t.instrument), t);
  }

  /** Merged per field group with what the instrument already has (ticker-merge.ts: partial rows of a venue). */
  putTicker(symbol: MarketSymbol, t: TickerState): void {
    const tickers = this.of(symbol).tickers;
    const key = instrumentKey(t.venue, t.instrument);
    tickers.set(key, mergeTicker(tickers.get(key), t));
  }

  putIndex(symbol: MarketSymbol, p: PricePoint): void {
    putLatest(this.of(symbol).index, instrumentKey(p.venue, p.name), p);
  }

  putPerp(symbol: MarketSymbol, p: PricePoint): void {
    putLatest(this.of(symbol).perps, instrumentKey(p.venue, p.name), p);
  }

  /** Instrument reference event: inactive options leave the chain, a later active version brings them back. */
  putInstrumentStatus(symbol: MarketSymbol, venue: Venue, instrument: string, ts: number, active: boolean): void {
    const s = this.of(symbol);
    const key = instrumentKey(venue, instrument);
    const cur = s.inactive.get(key);
    if (!active) {
      if (cur === undefined || ts > cur) s.inactive.set(key, ts);
    } else if (cur !== undefined && ts >= cur) s.inactive.delete(key);
  }

  /** Apply one decoded market event. Returns false for families the processor does not track. */
  apply(m: MarketEvent): boolean {
    switch (m.type) {
      case 'option_ticker': {
        const e = m.event;
        this.putTicker(e.symbol, {
          venue: e.venue,
          instrument: e.instrument,
          ts: e.ts,
          strike: e.strike,
          expiry: e.expiry,
          type: e.optionType,
          markIv: e.markIv,
          openInterest: e.openInterest,
          underlyingPrice: e.underlyingPrice,
          indexPrice: e.indexPrice,
          quote: quoteOf(e),
        });
        return true;
      }
      case 'index':
        if (m.event.kind !== 'index' || !Number.isFinite(m.event.value)) return false;
        this.putIndex(m.event.symbol, { venue: m.event.venue, name: m.event.name, ts: m.event.ts, value: m.event.value });
        return true;
      case 'perp_stats':
        if (m.event.markPrice === null || !Number.isFinite(m.event.markPrice)) return false;
        this.putPerp(m.event.symbol, { venue: m.event.venue, name: m.event.instrument, ts: m.event.ts, value: m.event.markPrice });
        return true;
      case 'instrument':
        if (m.event.kind !== 'option') return false;
        this.putInstrumentStatus(m.event.symbol, m.event.venue, m.event.instrument, m.event.ts, m.event.active);
        return true;
      default:
        return false;
    }
  }

  /** A copy of one symbol's state (safe to use while events keep arriving). */
  view(symbol: MarketSymbol): SymbolState {
    const s = this.symbols.get(symbol);
    if (s === undefined) return { tickers: [], index: [], perps: [], inactive: new Map() };
    return { tickers: [...s.tickers.values()], index: [...s.index.values()], perps: [...s.perps.values()], inactive: new Map(s.inactive) };
  }

  /** Drop tickers of expired instruments and stale prices (bounded memory). */
  prune(nowMs: number, keepMs: number): void {
    for (const s of this.symbols.values()) {
      for (const [k, t] of s.tickers) if (t.expiry <= nowMs || t.ts < nowMs - keepMs) s.tickers.delete(k);
      for (const [k, p] of s.index) if (p.ts < nowMs - keepMs) s.index.delete(k);
      for (const [k, p] of s.perps) if (p.ts < nowMs - keepMs) s.perps.delete(k);
    }
  }
}
