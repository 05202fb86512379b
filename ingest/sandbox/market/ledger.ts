import type { MarketEvent } from '../../../schemas/events.ts';

export type LedgerKind = 'option_trade' | 'perp_trade' | 'spot_trade' | 'liquidation';

export interface LedgerEntry {
  readonly kind: LedgerKind;
  readonly symbol: string;
  readonly instrument: string;
  /** Venue trade id (liquidations: the normalized event id). */
  readonly tradeId: string;
  readonly ts: number;
}

/** Every trade (and liquidation) per venue, in emission order. Counts and ids for end-to-end checks. */
export class TradeLedger {
  readonly #byVenue = new Map<string, LedgerEntry[]>();
  /** Running counts per venue and kind: count() is O(1) (the e2e bench asks after every burst). */
  readonly #counts = new Map<string, Record<LedgerKind, number>>();

  record(venue: string, entry: LedgerEntry): void {
    let list = this.#byVenue.get(venue);
    if (!list) this.#byVenue.set(venue, (list = []));
    list.push(entry);
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

  count(venue: string, kind?: LedgerKind): number {
    if (kind === undefined) return this.#byVenue.get(venue)?.length ?? 0;
    return this.#counts.get(venue)?.[kind] ?? 0;
  }

  ids(venue: string, kind: LedgerKind): readonly string[] {
    return this.entries(venue, kind).map((e) => e.tradeId);
  }

  venues(): readonly string[] {
    return [...this.#byVenue.keys()];
  }

  /** Summary: { venue: { option_trade: n, ... } }. */
  summary(): Readonly<Record<string, Readonly<Record<LedgerKind, number>>>> {
    const out: Record<string, Record<LedgerKind, number>> = {};
    for (const [venue, list] of this.#byVenue) {
      const c: Record<LedgerKind, number> = { option_trade: 0, perp_trade: 0, spot_trade: 0, liquidation: 0 };
      for (const e of list) c[e.kind]++;
      out[venue] = c;
    }
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
