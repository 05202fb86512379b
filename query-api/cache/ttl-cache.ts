/** Tiny time-to-live cache with single-flight loads; failed loads are not cached. */
export class TtlCache<T> {
  private readonly entries = new Map<string, { readonly value: T; readonly at: number }>();
  private readonly inflight = new Map<string, Promise<T>>();

  constructor(
    private readonly ttlMs: number,
    private readonly clock: () => number,
  ) {}

  async get(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit !== undefined && this.clock() - hit.at < this.ttlMs) return hit.value;
    let p = this.inflight.get(key);
    if (p === undefined) {
      p = load()
        .then((value) => {
          this.entries.set(key, { value, at: this.clock() });
          return value;
        })
        .finally(() => this.inflight.delete(key));
      this.inflight.set(key, p);
    }
    return p;
  }

  clear(): void {
    this.entries.clear();
  }
}
