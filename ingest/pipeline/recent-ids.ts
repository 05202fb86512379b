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

export class RecentIds {
  /** One insertion-ordered id set per event type, each bounded by `capacity`. */
  readonly #byType = new Map<MarketEvent['type'], Set<string>>();
  constructor(private readonly capacity = DEFAULT_RECENT_IDS) {}

  get size(): number {
    let n = 0;
    for (const ids of this.#byType.values()) n += ids.size;
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
      let ids = this.#byType.get(e.type);
      if (ids === undefined) this.#byType.set(e.type, (ids = new Set()));
      const id = e.event.id;
      if (ids.has(id)) {
        duplicates++;
        continue;
      }
      ids.add(id);
      if (ids.size > this.capacity) ids.delete(ids.values().next().value as string);
      fresh.push(e);
    }
    return { fresh, duplicates };
  }
}
