export interface TtlCacheOptions<T> {
  /** Lifetime of an entry, ms. 0 disables the cache (every get loads; concurrent gets still share one load). */
  readonly ttlMs: number;
  readonly clock: () => number;
  /** Bound on the summed weight of stored entries; the oldest stored entries go first. Default: unbounded. */
  readonly maxWeight?: number;
  /** Weight of a value (default 1: maxWeight bounds the entry count). A value heavier than maxWeight is not stored. */
  readonly weigh?: (value: T) => number;
  /** Whether a loaded value may be stored (default: always). A value refused here is still returned. */
  readonly cacheable?: (value: T) => boolean;
  /** Called with `hit` (served from the cache), `shared` (joined a load in flight) or `miss` (loaded). */
  readonly onLookup?: (result: 'hit' | 'shared' | 'miss') => void;
}

/** Time-to-live cache with single-flight loads and an optional size bound; failed loads are not cached. */
export class TtlCache<T> {
  private readonly entries = new Map<string, { readonly value: T; readonly at: number; readonly weight: number }>();
  private weight = 0;
  private readonly inflight = new Map<string, Promise<T>>();
  private readonly opts: TtlCacheOptions<T>;

  constructor(opts: TtlCacheOptions<T>) {
    this.opts = opts;
  }

  /** The value under `key`; `observe` (besides the options' onLookup) learns how this lookup was answered. */
  async get(key: string, load: () => Promise<T>, observe?: (result: 'hit' | 'shared' | 'miss') => void): Promise<T> {
    const report = (result: 'hit' | 'shared' | 'miss'): void => {
      this.opts.onLookup?.(result);
      observe?.(result);
    };
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      if (this.opts.clock() - hit.at < this.opts.ttlMs) {
        report('hit');
        return hit.value;
      }
      this.drop(key);
    }
    const pending = this.inflight.get(key);
    if (pending !== undefined) {
      report('shared');
      return pending;
    }
    report('miss');
    const p = load()
      .then((value) => {
        this.store(key, value);
        return value;
      })
      .finally(() => this.inflight.delete(key));
    this.inflight.set(key, p);
    return p;
  }

  /** Stored entries (an expired one stays until it is looked up or the next store drops it). */
  get size(): number {
    return this.entries.size;
  }

  /** Summed weight of the stored entries. */
  get totalWeight(): number {
    return this.weight;
  }

  clear(): void {
    this.entries.clear();
    this.weight = 0;
  }

  private drop(key: string): void {
    const e = this.entries.get(key);
    if (e === undefined) return;
    this.entries.delete(key);
    this.weight -= e.weight;
  }

  private store(key: string, value: T): void {
    if (this.opts.ttlMs <= 0 || (this.opts.cacheable !== undefined && !this.opts.cacheable(value))) return;
    const weight = this.opts.weigh?.(value) ?? 1;
    const max = this.opts.maxWeight ?? Number.POSITIVE_INFINITY;
    this.drop(key);
    if (weight > max) return;
    this.entries.set(key, { value, at: this.opts.clock(), weight });
    this.weight += weight;
    // Oldest first (insertion order): entries beyond the weight bound, and expired ones — an expired entry is never
    // served, and keys that are never asked again (one per 30 s snapshot instant) would otherwise stay until the
    // bound is reached (a 64-entry chain render memo took 32 minutes to fill: the soak's heap slope).
    const now = this.opts.clock();
    for (const [oldest, e] of this.entries) {
      if (this.weight <= max && now - e.at < this.opts.ttlMs) break;
      this.drop(oldest);
    }
  }
}
