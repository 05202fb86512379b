/**
 * The newest option trades of one symbol in memory, with the store's semantics, so the newest /v2/tape pages are
 * served without a statement (a page from option_trades FINAL costs 10-14 ms of engine whatever the table size:
 * measured in the session-10 note of issue 15). Pure: no I/O; tail-feed.ts fills it from the bus and the store.
 *
 * Semantics, the same as option_trades FINAL (ORDER BY (symbol, ts, venue, id), ReplacingMergeTree):
 * - one row per key (ts, venue, id); a redelivered trade replaces the held one (the later write wins);
 * - order: ts, then venue, then id, strings compared as ClickHouse does (bytes of UTF-8 = code points);
 * - a trade arriving late (a gap fill's old trade) is inserted at its place.
 * Coverage: the tail holds EVERY trade (it has received) with ts > `floor`; older ones are not held. A page whose
 * rows would need trades at or below the floor is not answered here (`page` returns null: read the store).
 * Bounded: above capacity + 10 % the oldest trades are dropped and the floor moves up to the newest dropped ts
 * (trades sharing that ts that are still held are then outside the coverage, as the strict `>` says).
 */
import { encodeCursor, type TapeCursor, type TapeOrder } from './cursor.ts';
import { keeps, type TapeFilter, type TapePage } from './filter.ts';
import type { TapeRow } from './tape-row.ts';

export interface TailEntry {
  /** Trade time, epoch ms (integer: DateTime64(3)). */
  readonly ts: number;
  readonly venue: string;
  /** Event id (the store's dedup key with ts and venue). */
  readonly id: string;
  /** UTC date of the expiry, `YYYY-MM-DD`. */
  readonly expiryDate: string;
  readonly row: TapeRow;
}

interface Key {
  readonly ts: number;
  readonly venue: string;
  readonly id: string;
}

/**
 * Code-point order of two strings (= byte order of their UTF-8, ClickHouse's String order). UTF-16 code units
 * give the same order except surrogates (U+10000 and up) against U+E000-U+FFFF, remapped here.
 */
export function compareText(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800) x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
    if (y >= 0xd800) y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    return x - y;
  }
  return a.length - b.length;
}

export function compareKeys(a: Key, b: Key): number {
  if (a.ts !== b.ts) return a.ts < b.ts ? -1 : 1;
  return compareText(a.venue, b.venue) || compareText(a.id, b.id);
}

export class SymbolTail {
  private entries: TailEntry[] = [];
  /** Every trade with ts > floor is held; −∞ would mean "all history", +∞ = nothing covered yet. */
  private floorTs = Number.POSITIVE_INFINITY;
  /** Newest ts a trim has dropped (also before the first load, which then cannot cover below it). */
  private droppedTs = Number.NEGATIVE_INFINITY;
  private loadedOnce = false;

  /** Most trades held after a trim; at most capacity + 10 % between trims. */
  constructor(readonly capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new Error(`tail capacity must be a positive integer, got ${capacity}`);
  }

  get size(): number {
    return this.entries.length;
  }

  get floor(): number {
    return this.floorTs;
  }

  /** True once a store load has set the coverage. */
  get ready(): boolean {
    return this.loadedOnce;
  }

  /**
   * One trade (bus delivery): inserted at its place or replacing the held copy. Before the first load every
   * trade is kept (the load's floor then drops what it does not cover); after it, a trade at or below the floor
   * is not held. Returns whether the trade was new.
   */
  add(e: TailEntry): boolean {
    if (this.loadedOnce && e.ts <= this.floorTs) return false;
    const last = this.entries[this.entries.length - 1];
    if (last === undefined || compareKeys(last, e) < 0) {
      this.entries.push(e);
      this.trim();
      return true;
    }
    const i = this.lowerBound(e);
    const at = this.entries[i];
    if (at !== undefined && compareKeys(at, e) === 0) {
      this.entries[i] = e;
      return false;
    }
    this.entries.splice(i, 0, e);
    this.trim();
    return true;
  }

  /**
   * Trades read from the store. The first load sets the coverage: every stored trade with ts > `floor` is in
   * `rows` (the reader's contract); held trades at or below it are dropped. Later loads (reconciliations) only
   * add what is missing — a held copy came from the bus, later than or equal to the stored one — and keep the
   * floor. Returns how many trades were missing.
   */
  load(rows: readonly TailEntry[], floor: number): number {
    if (!this.loadedOnce) {
      this.floorTs = Math.max(floor, this.droppedTs);
      this.loadedOnce = true;
      this.entries = this.entries.filter((e) => e.ts > floor);
    }
    let missing = 0;
    for (const r of rows) {
      if (r.ts <= this.floorTs) continue;
      const i = this.lowerBound(r);
      const at = this.entries[i];
      if (at !== undefined && compareKeys(at, r) === 0) continue;
      this.entries.splice(i, 0, r);
      missing++;
    }
    this.trim();
    return missing;
  }

  /**
   * A /v2/tape page from memory, exactly what readTape returns from the store with the same arguments, or null
   * when the page would need trades outside the coverage (or no load has set it yet).
   */
  page(f: TapeFilter, order: TapeOrder, limit: number, cursor: TapeCursor | null): TapePage | null {
    if (!this.loadedOnce) return null;
    return order === 'desc' ? this.pageDesc(f, limit, cursor) : this.pageAsc(f, limit, cursor);
  }

  private pageDesc(f: TapeFilter, limit: number, cursor: TapeCursor | null): TapePage | null {
    // First index above the upper bound: ts ≤ to, and strictly before the cursor's key.
    let i = cursor !== null && cursor.ts <= f.toMs ? this.lowerBound(cursor) : this.upperBoundTs(f.toMs);
    const out: TailEntry[] = [];
    for (i -= 1; i >= 0; i--) {
      const e = this.entries[i] as TailEntry;
      if (e.ts < f.fromMs) return pageOf(out, limit, 'desc');
      // A held trade at ts = floor (a trim or a load split that ms) is real: it may serve as the `limit + 1`-th.
      if (!keeps(f, e.row, e.expiryDate)) continue;
      out.push(e);
      if (out.length > limit) return pageOf(out, limit, 'desc');
    }
    // Every held trade below the bound was read: the page is complete only if the window starts above the floor.
    return f.fromMs > this.floorTs ? pageOf(out, limit, 'desc') : null;
  }

  private pageAsc(f: TapeFilter, limit: number, cursor: TapeCursor | null): TapePage | null {
    const fromCursor = cursor !== null && cursor.ts >= f.fromMs;
    if ((fromCursor ? (cursor as TapeCursor).ts : f.fromMs) <= this.floorTs) return null;
    let i = fromCursor ? this.upperBound(cursor as TapeCursor) : this.lowerBoundTs(f.fromMs);
    const out: TailEntry[] = [];
    for (; i < this.entries.length; i++) {
      const e = this.entries[i] as TailEntry;
      if (e.ts > f.toMs) break;
      if (!keeps(f, e.row, e.expiryDate)) continue;
      out.push(e);
      if (out.length > limit) break;
    }
    return pageOf(out, limit, 'asc');
  }

  /** Drops the oldest trades above capacity + 10 %; the floor becomes the newest dropped ts. */
  private trim(): void {
    const slack = Math.max(1, Math.floor(this.capacity / 10));
    if (this.entries.length <= this.capacity + slack) return;
    const drop = this.entries.length - this.capacity;
    const newest = this.entries[drop - 1] as TailEntry;
    this.entries.splice(0, drop);
    this.droppedTs = Math.max(this.droppedTs, newest.ts);
    if (this.loadedOnce) this.floorTs = Math.max(this.floorTs, this.droppedTs);
  }

  /** First index whose entry is not `before` (entries are sorted, so `before` holds for a prefix). */
  private bisect(before: (e: TailEntry) => boolean): number {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (before(this.entries[mid] as TailEntry)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** First index whose key is ≥ k. */
  private lowerBound(k: Key): number {
    return this.bisect((e) => compareKeys(e, k) < 0);
  }

  /** First index whose key is > k. */
  private upperBound(k: Key): number {
    return this.bisect((e) => compareKeys(e, k) <= 0);
  }

  /** First index with ts ≥ t. */
  private lowerBoundTs(t: number): number {
    return this.bisect((e) => e.ts < t);
  }

  /** First index with ts > t. */
  private upperBoundTs(t: number): number {
    return this.bisect((e) => e.ts <= t);
  }
}

/** `limit + 1` collected rows → a page of `limit` with the cursor after its last row; fewer → the last page. */
function pageOf(rows: readonly TailEntry[], limit: number, order: TapeOrder): TapePage {
  const n = Math.min(rows.length, limit);
  const trades: TapeRow[] = new Array<TapeRow>(n);
  for (let i = 0; i < n; i++) trades[i] = (rows[i] as TailEntry).row;
  const last = rows[n - 1];
  const more = rows.length > limit && last !== undefined;
  return { trades, nextCursor: more ? encodeCursor({ ts: last.ts, venue: last.venue, id: last.id, order }) : null };
}
