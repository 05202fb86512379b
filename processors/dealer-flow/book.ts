/**
 * The in-memory dealer book of one symbol at one checkpoint instant: per (venue, instrument, expiry) the
 * cumulative dealer-signed size in 1e-9 coin (exact BigInt) and the trade count. Pure: no I/O.
 */

export interface BookEntry {
  readonly venue: string;
  readonly instrument: string;
  readonly expiry: number;
  readonly nano: bigint;
  readonly trades: number;
}

/** A row as the store returns it (64-bit integers as strings). */
export interface NanoRow {
  readonly venue: string;
  readonly instrument: string;
  /** Epoch ms. */
  readonly expiry_ms: number;
  readonly nano: string;
  readonly trade_count: string | number;
}

export const entryKey = (venue: string, instrument: string, expiry: number): string => `${venue}|${instrument}|${expiry}`;

/** Coins from 1e-9 coin; `+ 0` turns −0 into 0. Every reader goes through this one conversion. */
export const coinsOf = (nano: bigint): number => Number(nano) / 1e9 + 0;

export function entryOf(r: NanoRow): BookEntry {
  return { venue: r.venue, instrument: r.instrument, expiry: r.expiry_ms, nano: BigInt(r.nano), trades: Number(r.trade_count) };
}

export class DealerBook {
  private readonly entries = new Map<string, BookEntry>();

  constructor(
    /** Instant (epoch ms) the book is at: every trade with ts ≤ at is in. */
    public at: number,
    entries: readonly BookEntry[] = [],
  ) {
    for (const e of entries) this.entries.set(entryKey(e.venue, e.instrument, e.expiry), e);
  }

  /**
   * Adds the per-contract sums of the trades in (this.at, to] and moves the book to `to`; contracts expired
   * at `to` are dropped. Returns the entries that changed (still open).
   */
  advance(to: number, deltas: readonly NanoRow[]): BookEntry[] {
    const changed: BookEntry[] = [];
    for (const d of deltas) {
      const key = entryKey(d.venue, d.instrument, d.expiry_ms);
      const prev = this.entries.get(key);
      const next: BookEntry = {
        ...entryOf(d),
        nano: (prev?.nano ?? 0n) + BigInt(d.nano),
        trades: (prev?.trades ?? 0) + Number(d.trade_count),
      };
      this.entries.set(key, next);
      if (next.expiry > to) changed.push(next);
    }
    for (const [key, e] of this.entries) if (e.expiry <= to) this.entries.delete(key);
    this.at = to;
    return changed;
  }

  /** Every open entry, in (venue, instrument, expiry) order. */
  all(): BookEntry[] {
    return [...this.entries.values()].sort(compareEntries);
  }
}

export function compareEntries(a: BookEntry, b: BookEntry): number {
  return a.venue < b.venue
    ? -1
    : a.venue > b.venue
      ? 1
      : a.instrument < b.instrument
        ? -1
        : a.instrument > b.instrument
          ? 1
          : a.expiry - b.expiry;
}

/** Unclipped inventory in coins per `venue|instrument` (several expiries of one name are summed). */
export function inventoryMap(entries: readonly BookEntry[]): Map<string, number> {
  const nano = new Map<string, bigint>();
  for (const e of [...entries].sort(compareEntries)) {
    const key = `${e.venue}|${e.instrument}`;
    nano.set(key, (nano.get(key) ?? 0n) + e.nano);
  }
  const out = new Map<string, number>();
  for (const [k, n] of nano) out.set(k, coinsOf(n));
  return out;
}
