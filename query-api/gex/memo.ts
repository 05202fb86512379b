/**
 * Rendered answers per cached snapshot: the latest snapshot of a symbol is immutable, so every (route, model,
 * venue filter, include set) answer is computed and serialized once per snapshot and then sent as is. Keyed
 * weakly on the snapshot object: when the cache moves to a newer snapshot the old answers go with it.
 */
const MAX_KEYS_PER_SNAPSHOT = 512;

export interface Rendered<T> {
  readonly data: T;
  /** JSON of `data`. */
  readonly json: string;
}

export class SnapshotMemo {
  private readonly bySnapshot = new WeakMap<object, Map<string, Promise<unknown>>>();

  /** The memoized value for (snapshot, key), computing it once (concurrent callers share the computation). */
  get<T>(snapshot: object, key: string, compute: () => Promise<T> | T): Promise<T> {
    let m = this.bySnapshot.get(snapshot);
    if (m === undefined) this.bySnapshot.set(snapshot, (m = new Map()));
    const hit = m.get(key);
    if (hit !== undefined) return hit as Promise<T>;
    if (m.size >= MAX_KEYS_PER_SNAPSHOT) m.clear();
    const map = m;
    const p = Promise.resolve().then(compute);
    map.set(key, p);
    p.catch(() => map.delete(key));
    return p;
  }
}

export function rendered<T>(data: T): Rendered<T> {
  return { data, json: JSON.stringify(data) };
}
