import type { MarketEvent } from '#schemas/events.ts';

export type LedgerKind = 'option_trade' | 'perp_trade' | 'spot_trade' | 'liquidation';

export interface LedgerEntry {
  readonly kind: LedgerKind;
  readonly symbol: string;
  readonly instrument: string;
  /** Venue trade id (liquidations: the normalized event id). */
  readonly tradeId: string;
  readonly ts: number;
}

/**
 * Every trade (and liquidation) per venue, in emission order. Counts and ids for end-to-end checks. A long-running
 * sandbox (the demo) bounds the entries kept per venue with `capacity` (the newest kept; counts stay exact), so the
 * ledger does not grow with uptime; tests keep everything (default).
 */
export class TradeLedger {
  readonly #byVenue = new Map<string, LedgerEntry[]>();
  /** Running counts per venue and kind: count() is O(1) (the e2e bench asks after every burst). */
  readonly #counts = new Map<string, Record<LedgerKind, number>>();

  constructor(private readonly capacity = Infinity) {}

  record(venue: string, entry: LedgerEntry): void {
    let list = this.#byVenue.get(venue);
    if (!list) this.#byVenue.set(venue, (list = []));
    list.push(entry);
    if (list.length > this.capacity * 1.25) this.#byVenue.set(venue, list.slice(list.length - this.capacity));
    let counts = this.#counts.get(venue);
    if (!counts) this.#counts.set(venue, (counts = { option_trade: 0, perp_trade: 0, spot_trade: 0, liquidation: 0 }));
    counts[entry.kind]++;
  }

  /** Record the trade-like events of a list (others are ignored). */
  recordEvents(events: readonly MarketEvent[]): void {
    for (const e of events) {
      const entry = ledgerEntryOf(e);
      if (entry) this.record(e.event.venue, entry);
    }
  }

  entries(venue: string, kind?: LedgerKind): readonly LedgerEntry[] {
    const list = this.#byVenue.get(venue) ?? [];
    return kind ? list.filter((e) => e.kind === kind) : list;
  }

  /** Trades recorded (all of them, also those beyond the capacity). */
  count(venue: string, kind?: LedgerKind): number {
    const c = this.#counts.get(venue);
    if (c === undefined) return 0;
    return kind === undefined ? c.option_trade + c.perp_trade + c.spot_trade + c.liquidation : c[kind];
  }

  ids(venue: string, kind: LedgerKind): readonly string[] {
    return this.entries(venue, kind).map((e) => e.tradeId);
  }

  venues(): readonly string[] {
    return [...this.#byVenue.keys()];
  }

  /** Summary: { venue: { option_trade: n, ... } } (every trade recorded). */
  summary(): Readonly<Record<string, Readonly<Record<LedgerKind, number>>>> {
    const out: Record<string, Record<LedgerKind, number>> = {};
    for (const [venue, c] of this.#counts) out[venue] = { ...c };
    return out;
  }
}

export function ledgerEntryOf(e: MarketEvent): LedgerEntry | null {
  switch (e.type) {
    case 'option_trade':
    case 'perp_trade':
    case 'spot_trade':
      return { kind: e.type, symbol: e.event.symbol, instrument: e.event.instrument, tradeId: e.event.tradeId, ts: e.event.ts };
    case 'liquidation':
      return { kind: 'liquidation', symbol: e.event.symbol, instrument: e.event.instrument, tradeId: e.event.id, ts: e.event.ts };
    default:
      return null;
  }
}
