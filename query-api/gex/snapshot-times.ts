/**
 * In-process index of SETTLED snapshot instants per symbol, so a historical venue-filtered as_of read finds its
 * instant without a query (the instant lookup costs as much as the row read on chDB).
 *
 * Settled: older than SETTLE_MS before the wall clock. The processor writes a tick live, or catches it up on
 * start only while it is within catchUpWindowMs (config.ts caps it at MAX_CATCH_UP_MS, far below SETTLE_MS), and
 * snapshot rows are never updated or deleted; so the set of completed ticks before the horizon is final and the
 * index never needs invalidating. It holds every completed tick (gex_levels, model `std`: a cycle writes both
 * models in one insert) up to `settledTo`, and is extended, not reloaded, once the horizon has moved by more than
 * EXTEND_AFTER_MS. Instants after the horizon, and anything while the index loads, go through the store.
 * Memory: 8 bytes per tick (a year of 30 s ticks: 8 MB per symbol).
 */
import type { Store } from '#clickhouse/store.ts';
import type { MarketSymbol } from '#schemas/events.ts';
import { msParam, msValue, msColumn } from '#clickhouse/epoch-ms.ts';

export const SETTLE_MS = 24 * 3600_000;
const EXTEND_AFTER_MS = 3600_000;
/** Ticks are loaded a week at a time (~20k ticks of 30 s per query): no long JSON parse blocks the event loop. */
const LOAD_CHUNK_MS = 7 * 24 * 3600_000;

const TICKS_SQL = `SELECT arraySort(groupArray(${msValue('computed_at')})) AS ts FROM gex_levels
WHERE symbol = {symbol:String} AND model = 'std' AND computed_at > ${msParam('from')} AND computed_at <= ${msParam('to')}`;
const FIRST_SQL = `SELECT ${msColumn('computed_at', 't')} FROM gex_levels
WHERE symbol = {symbol:String} ORDER BY computed_at LIMIT 1`;

interface Entry {
  ticks: Float64Array;
  /** Every completed tick ≤ settledTo is in `ticks`. */
  settledTo: number;
  loading: Promise<void> | null;
}

/** Index of the last element ≤ x in ascending `a`, or −1. */
function lastAtOrBefore(a: Float64Array, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((a[mid] as number) <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

export class SnapshotTimes {
  private readonly bySymbol = new Map<MarketSymbol, Entry>();

  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The newest completed instant at or before `asOfMs` (null: none, before the first snapshot) when the index
   * can answer; undefined when the caller must ask the store (not settled yet, or the index is loading).
   */
  atOrBefore(symbol: MarketSymbol, asOfMs: number): number | null | undefined {
    const horizon = this.now() - SETTLE_MS;
    if (asOfMs > horizon) return undefined;
    let e = this.bySymbol.get(symbol);
    if (e === undefined)
      this.bySymbol.set(symbol, (e = { ticks: new Float64Array(0), settledTo: Number.NEGATIVE_INFINITY, loading: null }));
    if (e.loading === null && horizon - e.settledTo > EXTEND_AFTER_MS) e.loading = this.extend(symbol, e, horizon);
    if (asOfMs > e.settledTo) return undefined;
    const i = lastAtOrBefore(e.ticks, asOfMs);
    return i < 0 ? null : (e.ticks[i] as number);
  }

  /** Resolves once no load is running for `symbol` (tests, warm-up). */
  async ready(symbol: MarketSymbol): Promise<void> {
    await this.bySymbol.get(symbol)?.loading;
  }

  private async extend(symbol: MarketSymbol, e: Entry, to: number): Promise<void> {
    try {
      let from = e.settledTo;
      if (!Number.isFinite(from)) {
        const [first] = await this.store.query<{ t: number }>(FIRST_SQL, { symbol });
        from = first === undefined ? to : first.t - 1;
      }
      const parts: Float64Array[] = [e.ticks];
      for (let lo = from; lo < to; lo += LOAD_CHUNK_MS) {
        const hi = Math.min(to, lo + LOAD_CHUNK_MS);
        const [r] = await this.store.query<{ ts: number[] }>(TICKS_SQL, { symbol, from: Math.floor(lo), to: Math.floor(hi) });
        parts.push(Float64Array.from(r?.ts ?? []));
      }
      const next = new Float64Array(parts.reduce((n, p) => n + p.length, 0));
      let n = 0;
      for (const p of parts) for (const t of p) if (n === 0 || t > (next[n - 1] as number)) next[n++] = t; // drop unmerged duplicates
      e.ticks = next.subarray(0, n);
      e.settledTo = Math.floor(to);
    } catch {
      // leave the index as it was: reads go through the store, the next read retries
    } finally {
      e.loading = null;
    }
  }
}

const indexes = new WeakMap<Store, SnapshotTimes>();

/** The index of one store (created on first use). */
export function snapshotTimesOf(store: Store): SnapshotTimes {
  let s = indexes.get(store);
  if (s === undefined) indexes.set(store, (s = new SnapshotTimes(store)));
  return s;
}
