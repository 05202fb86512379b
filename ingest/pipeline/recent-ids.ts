/**
 * The ids of the trade-like events a venue published recently (option, perp and spot trades, liquidations), so a
 * trade that arrives twice (a gap fill overlapping the live stream, a venue re-sending on resubscribe) is
 * published once. Bounded: the oldest ids are forgotten beyond `capacity`. What can come twice is the last ~30 s
 * before an outage (the gap fill's margin) and the live trades after the reconnect until the fill is done; the
 * default 5,000 per venue and event type covers minutes of the busiest venue. Ids are remembered per event type: a
 * venue's perp and spot trades of one pair share the instrument name in the id (Binance and Bybit `BTCUSDT`) and
 * their trade-id counters may overlap.
 *
 * An id is remembered as a 64-bit hash (two 32-bit lanes), not as the string: a window holds no strings, so the ids
 * it forgets are never garbage of the old generation (keeping 20,000 strings per venue made every trade id survive
 * into the old heap and die there), and a lookup is a probe of a typed array. Two different ids share a hash with
 * probability 2^-64: checking N ids against a full window of W wrongly drops about N * W / 2^64 of them (1e10
 * trades against 5,000 ids: 3e-6 trades).
 */
import type { MarketEvent } from '#schemas/events.ts';

export const DEFAULT_RECENT_IDS = 5_000;

/** Option, perp and spot trades and liquidations: the events a venue prints once, with a stable id. */
export function isTradeLike(e: MarketEvent): boolean {
  const t = e.type;
  return t === 'option_trade' || t === 'perp_trade' || t === 'spot_trade' || t === 'liquidation';
}

/** murmur3's 32-bit finalizer: every input bit moves every output bit. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * The 64-bit hash of `s` as [hi, lo] written into `out`: two multiplicative lanes over the UTF-16 code units with
 * different odd multipliers and seeds, each finalized with fmix32, the length mixed into both. `hi` is never 0 (0
 * marks an empty slot; a lane value of 0 is taken as 1, one value in 2^32).
 */
export function idHash(s: string, out: Uint32Array): void {
  let a = 0x811c9dc5;
  let b = 0x2545f491;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  out[0] = fmix32(a ^ s.length) || 1;
  out[1] = fmix32(b ^ Math.imul(s.length, 0x9e3779b1));
}

/**
 * One event type's remembered ids: an open-addressing table of hashes (linear probing, at most 5/8 full, removal by
 * backward shift so no tombstones build up), and a ring of the same hashes in arrival order to forget the oldest.
 * A slot is two adjacent words (hi, lo), so a probe touches one cache line: a venue's table of 5,000 ids is 64 KiB.
 */
export class IdWindow {
  /** slot k = [2k] hi (0: empty), [2k + 1] lo. */
  readonly #table: Uint32Array;
  readonly #mask: number;
  /** entry k = [2k] hi, [2k + 1] lo, in arrival order from #next. */
  readonly #ring: Uint32Array;
  #size = 0;
  #next = 0;

  constructor(readonly capacity: number) {
    let slots = 16;
    while (slots * 5 < capacity * 8) slots *= 2;
    this.#table = new Uint32Array(2 * slots);
    this.#mask = slots - 1;
    this.#ring = new Uint32Array(2 * capacity);
  }

  get size(): number {
    return this.#size;
  }

  /** True when (hi, lo) is remembered; otherwise remembers it (forgetting the oldest beyond the capacity) and returns false. */
  seenOrAdd(hi: number, lo: number): boolean {
    const t = this.#table;
    const mask = this.#mask;
    let i = lo & mask;
    for (let h = t[2 * i] as number; h !== 0; h = t[2 * i] as number) {
      if (h === hi && t[2 * i + 1] === lo) return true;
      i = (i + 1) & mask;
    }
    const ring = this.#ring;
    const next = this.#next;
    if (this.#size === this.capacity) this.#remove(ring[2 * next] as number, ring[2 * next + 1] as number);
    else this.#size++;
    // The removal may have shifted a slot back into the probe path: probe again for the free slot.
    i = lo & mask;
    while (t[2 * i] !== 0) i = (i + 1) & mask;
    t[2 * i] = hi;
    t[2 * i + 1] = lo;
    ring[2 * next] = hi;
    ring[2 * next + 1] = lo;
    this.#next = next + 1 === this.capacity ? 0 : next + 1;
    return false;
  }

  /** Removes a remembered hash, moving later members of its probe run back so every member stays reachable. */
  #remove(hi: number, lo: number): void {
    const t = this.#table;
    const mask = this.#mask;
    let i = lo & mask;
    while (!(t[2 * i] === hi && t[2 * i + 1] === lo)) {
      if (t[2 * i] === 0) return;
      i = (i + 1) & mask;
    }
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const h = t[2 * j] as number;
      if (h === 0) break;
      const home = (t[2 * j + 1] as number) & mask;
      // The member at j may move to i when its home is not in (i, j] (cyclically).
      if (i <= j ? home <= i || home > j : home <= i && home > j) {
        t[2 * i] = h;
        t[2 * i + 1] = t[2 * j + 1] as number;
        i = j;
      }
    }
    t[2 * i] = 0;
    t[2 * i + 1] = 0;
  }
}

export class RecentIds {
  /** One id window per event type, each bounded by `capacity`. */
  readonly #byType = new Map<MarketEvent['type'], IdWindow>();
  readonly #hash = new Uint32Array(2);
  constructor(private readonly capacity = DEFAULT_RECENT_IDS) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`RecentIds capacity must be a whole number >= 1, got ${capacity}`);
  }

  get size(): number {
    let n = 0;
    for (const w of this.#byType.values()) n += w.size;
    return n;
  }

  /**
   * The events to publish: every non-trade event, and each trade-like event whose id was not seen (now remembered).
   * Without a duplicate `fresh` is `events` itself (no copy: most frames carry none).
   */
  admit(events: readonly MarketEvent[]): { readonly fresh: readonly MarketEvent[]; readonly duplicates: number } {
    let duplicates = 0;
    let fresh: MarketEvent[] | null = null;
    for (let i = 0; i < events.length; i++) {
      const e = events[i] as MarketEvent;
      if (isTradeLike(e) && this.#seenOrAdd(e)) {
        fresh ??= events.slice(0, i);
        duplicates++;
      } else if (fresh !== null) fresh.push(e);
    }
    return { fresh: fresh ?? events, duplicates };
  }

  #seenOrAdd(e: MarketEvent): boolean {
    let w = this.#byType.get(e.type);
    if (w === undefined) this.#byType.set(e.type, (w = new IdWindow(this.capacity)));
    const hash = this.#hash;
    idHash(e.event.id, hash);
    return w.seenOrAdd(hash[0] as number, hash[1] as number);
  }
}
