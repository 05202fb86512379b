/**
 * The ids of the trade-like events a venue published recently (option, perp and spot trades, liquidations), so a
 * trade that arrives twice (a gap fill overlapping the live stream, a venue re-sending on resubscribe) is
 * published once. Bounded: the oldest ids are forgotten beyond `capacity` (a Set keeps insertion order). What can
 * come twice is the last ~30 s before an outage (the gap fill's margin) and the live trades after the reconnect
 * until the fill is done; the default 5,000 per venue and event type covers minutes of the busiest venue (~0.6 MB each). Ids
 * are remembered per event type: a venue's perp and spot trades of one pair share the instrument name in the id
 * (Binance and Bybit `BTCUSDT`) and their trade-id counters may overlap.
 */
import type { MarketEvent } from '#schemas/events.ts';

export const DEFAULT_RECENT_IDS = 5_000;

const TRADE_LIKE = new Set<MarketEvent['type']>(['option_trade', 'perp_trade', 'spot_trade', 'liquidation']);

/** Option, perp and spot trades and liquidations: the events a venue prints once, with a stable id. */
export function isTradeLike(e: MarketEvent): boolean {
  return TRADE_LIKE.has(e.type);
}

/**
 * One event type's remembered ids: a Set to ask, and a ring of the same ids in arrival order to forget the oldest.
 * (Forgetting through `set.values().next()` walks past every slot deleted since V8 last compacted the Set: at
 * 5,000 ids that cost ~2 µs per trade, more than parsing it.)
 */
class IdWindow {
  readonly ids = new Set<string>();
  readonly #ring: string[];
  #next = 0;
  constructor(capacity: number) {
    this.#ring = new Array<string>(capacity);
  }

  /** Remembers `id`, forgetting the oldest beyond the capacity. */
  add(id: string): void {
    const ring = this.#ring;
    if (this.ids.size >= ring.length) this.ids.delete(ring[this.#next] as string);
    this.ids.add(id);
    ring[this.#next] = id;
    this.#next = this.#next + 1 === ring.length ? 0 : this.#next + 1;
  }
}

export class RecentIds {
  /** One id window per event type, each bounded by `capacity`. */
  readonly #byType = new Map<MarketEvent['type'], IdWindow>();
  constructor(private readonly capacity = DEFAULT_RECENT_IDS) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`RecentIds capacity must be a whole number >= 1, got ${capacity}`);
  }

  get size(): number {
    let n = 0;
    for (const w of this.#byType.values()) n += w.ids.size;
    return n;
  }

  /** The events to publish: every non-trade event, and each trade-like event whose id was not seen (now remembered). */
  admit(events: readonly MarketEvent[]): { readonly fresh: readonly MarketEvent[]; readonly duplicates: number } {
    let duplicates = 0;
    const fresh: MarketEvent[] = [];
    for (const e of events) {
      if (!isTradeLike(e)) {
        fresh.push(e);
        continue;
      }
      let w = this.#byType.get(e.type);
      if (w === undefined) this.#byType.set(e.type, (w = new IdWindow(this.capacity)));
      const id = e.event.id;
      if (w.ids.has(id)) {
        duplicates++;
        continue;
      }
      w.add(id);
      fresh.push(e);
    }
    return { fresh, duplicates };
  }
}
