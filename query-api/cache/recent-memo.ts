/**
 * Memo of recently computed values, bounded by count AND age: an entry older than `maxAgeMs` is dropped (from the
 * oldest end, on every insert) even while the count bound is not reached. For values keyed by a snapshot instant
 * (a new one every 30 s, rarely asked again once it is not the newest): a count bound alone fills one entry per
 * instant and holds old instants' values until the count is reached (a 64-entry memo took 32 minutes to fill and
 * showed as heap growth in the soak); the age bound keeps only the last minutes' values.
 * Insertion order is the eviction order (a hit does not refresh an entry: values of one instant are equally old).
 */
export interface RecentMemoOptions {
  readonly maxEntries: number;
  readonly maxAgeMs: number;
  readonly clock?: () => number;
}

export class RecentMemo<V> {
  private readonly entries = new Map<string, { readonly value: V; readonly at: number }>();
  private readonly clock: () => number;

  constructor(private readonly opts: RecentMemoOptions) {
    this.clock = opts.clock ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The stored value for `key` if it is younger than maxAgeMs. */
  peek(key: string): V | undefined {
    const e = this.entries.get(key);
    if (e === undefined) return undefined;
    if (this.clock() - e.at >= this.opts.maxAgeMs) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  /** The stored value, or `compute()` stored and returned. */
  get(key: string, compute: () => V): V {
    const hit = this.peek(key);
    if (hit !== undefined) return hit;
    const value = compute();
    this.set(key, value);
    return value;
  }

  set(key: string, value: V): void {
    const now = this.clock();
    this.entries.delete(key);
    this.entries.set(key, { value, at: now });
    for (const [k, e] of this.entries) {
      if (this.entries.size <= this.opts.maxEntries && now - e.at < this.opts.maxAgeMs) break;
      this.entries.delete(k);
    }
  }

  delete(key: string, value?: V): void {
    if (value === undefined || this.entries.get(key)?.value === value) this.entries.delete(key);
  }
}
