/**
 * The option trades of one symbol's live contracts (expiry date today UTC or later) in memory, column-wise, so
 * /v2/tape/flow-by-strike sums them without a statement (option_trades_unexpired FINAL over a year of synthetic BTC
 * trades: 150-300 ms; a pass here: a few ms). Pure: no I/O; live-flow-feed.ts fills it from the bus and the store.
 *
 * Semantics of option_trades_unexpired FINAL (ORDER BY (symbol, expiry, venue, id), ReplacingMergeTree): one trade per
 * key (expiry, venue, id); a later copy replaces the held one (last write wins). `cells` is readFlowCells'
 * statement (flow-read.ts) evaluated here: ts ≤ now, expiry ≥ today 00:00 UTC, finite size and premium, premium ≥
 * the minimum, the expiry-date and venue filters; sums per (strike, type, side, venue). Sums of doubles in another
 * order than ClickHouse's (which is not fixed either): equal within rounding (relative 1e-12), counts exactly.
 * Bounded: at most `capacity` trades; above it the book is `full` (the caller reads the store) until expired
 * contracts are dropped (`dropExpired`).
 */
import type { FlowCell } from '#processors/analytics/flow-by-strike.ts';
import { utcDate } from './filter.ts';

export interface LiveTrade {
  readonly ts: number;
  readonly expiry: number;
  readonly venue: string;
  readonly id: string;
  readonly strike: number;
  readonly type: string;
  readonly side: string;
  readonly size: number;
  readonly premium: number;
}

export interface FlowQuery {
  readonly nowMs: number;
  /** `YYYY-MM-DD`; empty: every live expiry. */
  readonly expiryDates: readonly string[];
  readonly minPremiumUsd: number;
  /** Empty: every venue. */
  readonly venues: readonly string[];
}

const DAY_MS = 86_400_000;
/**
 * 31-bit hash of a key (expiry, venue id, id): FNV-1a over the id's code units, mixed with the venue id and the
 * expiry. Only a bucket index: a lookup compares the held keys of its bucket exactly (no key strings are built or
 * held: ~150 bytes a trade instead of ~380 with a Map of concatenated keys, measured).
 */
export function hashOf(expiry: number, venue: number, id: string): number {
  let h = 0x811c9dc5 ^ venue;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  h = Math.imul(h ^ (expiry % 0x7fffffff), 0x01000193);
  h = Math.imul(h ^ Math.floor(expiry / 0x7fffffff), 0x01000193);
  return h >>> 1;
}

/** Growable Float64 column. */
function grow(a: Float64Array, n: number): Float64Array {
  if (n <= a.length) return a;
  const b = new Float64Array(Math.max(n, a.length * 2));
  b.set(a);
  return b;
}

function growBytes(a: Uint8Array, n: number): Uint8Array {
  if (n <= a.length) return a;
  const b = new Uint8Array(Math.max(n, a.length * 2));
  b.set(a);
  return b;
}

/** Distinct strings (venues, types, sides) numbered from 0, at most 256. */
class Dictionary {
  readonly names: string[] = [];
  private readonly ids = new Map<string, number>();

  id(name: string): number | null {
    let i = this.ids.get(name);
    if (i === undefined) {
      if (this.names.length >= 256) return null;
      i = this.names.length;
      this.names.push(name);
      this.ids.set(name, i);
    }
    return i;
  }
}

export class LiveFlowBook {
  private n = 0;
  private ts: Float64Array = new Float64Array(1024);
  private expiry: Float64Array = new Float64Array(1024);
  private strike: Float64Array = new Float64Array(1024);
  private size: Float64Array = new Float64Array(1024);
  private premium: Float64Array = new Float64Array(1024);
  private venue: Uint8Array = new Uint8Array(1024);
  private type: Uint8Array = new Uint8Array(1024);
  private side: Uint8Array = new Uint8Array(1024);
  private ids: string[] = [];
  /** Hash bucket → the newest row of the bucket; `next` chains the older rows of the same bucket (−1: end). */
  private heads = new Map<number, number>();
  private next: Int32Array = new Int32Array(1024);
  private readonly venues = new Dictionary();
  private readonly types = new Dictionary();
  private readonly sides = new Dictionary();
  private overflow = false;

  constructor(readonly capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new Error(`live flow capacity must be a positive integer, got ${capacity}`);
  }

  get count(): number {
    return this.n;
  }

  /** More live trades than the capacity (or a 257th distinct venue/type/side) were offered: answers are incomplete. */
  get full(): boolean {
    return this.overflow;
  }

  /** Adds a trade or replaces the held copy of its key. Returns whether it was new. */
  add(t: LiveTrade): boolean {
    const v = this.venues.id(t.venue);
    const ty = this.types.id(t.type);
    const sd = this.sides.id(t.side);
    if (v === null || ty === null || sd === null) {
      this.overflow = true;
      return false;
    }
    const h = hashOf(t.expiry, v, t.id);
    const held = this.find(h, t.expiry, v, t.id);
    let i = held;
    if (i < 0) {
      if (this.n >= this.capacity) {
        this.overflow = true;
        return false;
      }
      i = this.n++;
      this.reserve(this.n);
      this.ids[i] = t.id;
      this.link(h, i);
    }
    this.ts[i] = t.ts;
    this.expiry[i] = t.expiry;
    this.strike[i] = t.strike;
    this.size[i] = t.size;
    this.premium[i] = t.premium;
    this.venue[i] = v;
    this.type[i] = ty;
    this.side[i] = sd;
    return held < 0;
  }

  /** Whether a trade of that key is held. */
  has(expiry: number, venue: string, id: string): boolean {
    const v = this.venues.id(venue);
    return v !== null && this.find(hashOf(expiry, v, id), expiry, v, id) >= 0;
  }

  /**
   * Drops the trades of contracts whose expiry is before `todayStartMs` (00:00 UTC of today): they are no longer
   * live. Clears `full` when the rest fits.
   */
  dropExpired(todayStartMs: number): number {
    let w = 0;
    for (let r = 0; r < this.n; r++) {
      if ((this.expiry[r] as number) < todayStartMs) continue;
      if (w !== r) {
        this.ts[w] = this.ts[r] as number;
        this.expiry[w] = this.expiry[r] as number;
        this.strike[w] = this.strike[r] as number;
        this.size[w] = this.size[r] as number;
        this.premium[w] = this.premium[r] as number;
        this.venue[w] = this.venue[r] as number;
        this.type[w] = this.type[r] as number;
        this.side[w] = this.side[r] as number;
        this.ids[w] = this.ids[r] as string;
      }
      w++;
    }
    const dropped = this.n - w;
    if (dropped === 0) return 0;
    this.n = w;
    this.ids.length = w;
    // the rows moved: index them again
    this.heads = new Map();
    for (let r = 0; r < w; r++) this.link(hashOf(this.expiry[r] as number, this.venue[r] as number, this.ids[r] as string), r);
    if (this.n < this.capacity) this.overflow = false;
    return dropped;
  }

  /** The row holding the key, or −1. */
  private find(h: number, expiry: number, venue: number, id: string): number {
    for (let r = this.heads.get(h) ?? -1; r >= 0; r = this.next[r] as number) {
      if (this.expiry[r] === expiry && this.venue[r] === venue && this.ids[r] === id) return r;
    }
    return -1;
  }

  private link(h: number, row: number): void {
    this.next[row] = this.heads.get(h) ?? -1;
    this.heads.set(h, row);
  }

  /** The flow cells of readFlowCells for the same query. */
  cells(q: FlowQuery): FlowCell[] {
    const todayStart = Math.floor(q.nowMs / DAY_MS) * DAY_MS;
    const venueOk = this.venueMask(q.venues);
    const dates = q.expiryDates.length > 0 ? new Set(q.expiryDates) : null;
    const dateOk = new Map<number, boolean>();
    // per strike: [size, premium, trades] per (type, side, venue) slot
    const slots = this.types.names.length * this.sides.names.length * this.venues.names.length;
    const sums = new Map<number, Float64Array>();
    for (let i = 0; i < this.n; i++) {
      const ex = this.expiry[i] as number;
      if ((this.ts[i] as number) > q.nowMs || ex < todayStart) continue;
      const size = this.size[i] as number;
      const premium = this.premium[i] as number;
      if (!Number.isFinite(size) || !Number.isFinite(premium) || !(premium >= q.minPremiumUsd)) continue;
      const v = this.venue[i] as number;
      if (venueOk !== null && venueOk[v] !== 1) continue;
      if (dates !== null) {
        let ok = dateOk.get(ex);
        if (ok === undefined) dateOk.set(ex, (ok = dates.has(utcDate(ex))));
        if (!ok) continue;
      }
      const strike = this.strike[i] as number;
      let s = sums.get(strike);
      if (s === undefined) sums.set(strike, (s = new Float64Array(slots * 3)));
      const slot = ((this.type[i] as number) * this.sides.names.length + (this.side[i] as number)) * this.venues.names.length + v;
      s[slot * 3] = (s[slot * 3] as number) + size;
      s[slot * 3 + 1] = (s[slot * 3 + 1] as number) + premium;
      s[slot * 3 + 2] = (s[slot * 3 + 2] as number) + 1;
    }
    return this.cellsOf(sums);
  }

  private cellsOf(sums: ReadonlyMap<number, Float64Array>): FlowCell[] {
    const out: FlowCell[] = [];
    const nv = this.venues.names.length;
    const ns = this.sides.names.length;
    for (const [strike, s] of sums) {
      for (let slot = 0; slot * 3 < s.length; slot++) {
        const trades = s[slot * 3 + 2] as number;
        if (trades === 0) continue;
        const v = slot % nv;
        const sd = Math.floor(slot / nv) % ns;
        const ty = Math.floor(slot / nv / ns);
        out.push({
          strike,
          type: this.types.names[ty] as string,
          side: this.sides.names[sd] as string,
          venue: this.venues.names[v] as string,
          size: s[slot * 3] as number,
          premium: s[slot * 3 + 1] as number,
          trades,
        });
      }
    }
    return out;
  }

  /** 1 per venue id allowed; null: every venue. */
  private venueMask(venues: readonly string[]): Uint8Array | null {
    if (venues.length === 0) return null;
    const mask = new Uint8Array(256);
    this.venues.names.forEach((name, i) => {
      if (venues.includes(name)) mask[i] = 1;
    });
    return mask;
  }

  private reserve(n: number): void {
    this.ts = grow(this.ts, n);
    this.expiry = grow(this.expiry, n);
    this.strike = grow(this.strike, n);
    this.size = grow(this.size, n);
    this.premium = grow(this.premium, n);
    this.venue = growBytes(this.venue, n);
    if (n > this.next.length) {
      const b = new Int32Array(Math.max(n, this.next.length * 2));
      b.set(this.next);
      this.next = b;
    }
    this.type = growBytes(this.type, n);
    this.side = growBytes(this.side, n);
  }
}
