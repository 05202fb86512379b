/**
 * What the ingest tests against the flooding sandbox (flood-sandbox.ts) share: a bus that can stall its publishes,
 * the connector URLs of the sandbox process, and a collector of the option-trade ids that reached the bus, compared
 * with the sandbox's ledger.
 */
import { MemoryBus } from '#bus/memory-bus.ts';
import type { Bus, BusConsumer, BusMessage } from '#bus/types.ts';
import { TOPICS, type Venue } from '#schemas/events.ts';
import { decodeMarketEvent } from '#schemas/event-codec.ts';
import type { VenueUrls } from '#ingest/connector/types.ts';
import { connectorUrlsFor } from '#sandbox/connector-urls.ts';
import { SANDBOX_VENUES, type SandboxVenue } from '#sandbox/market/venues.ts';
import type { VenueUrls as SandboxUrls } from '#sandbox/servers/types.ts';

/** The in-process bus; while stalled, every publish waits until `recover()` (a broker outage). */
export class StallableBus extends MemoryBus {
  #gate: Promise<void> | null = null;
  #open: () => void = () => undefined;
  stall(): void {
    this.#gate ??= new Promise((r) => {
      this.#open = r;
    });
  }
  recover(): void {
    this.#gate = null;
    this.#open();
  }
  override async publish(topic: string, messages: readonly BusMessage[]): Promise<void> {
    while (this.#gate) await this.#gate;
    await super.publish(topic, messages);
  }
}

/** The connectors' URLs for every venue the sandbox process serves (its ready message's `urls`). */
export function sandboxConnectorUrls(ready: Readonly<Record<string, unknown>>): Partial<Record<Venue, VenueUrls>> {
  const served = ready['urls'] as Partial<Record<SandboxVenue, SandboxUrls>>;
  const urls: Partial<Record<Venue, VenueUrls>> = {};
  for (const v of SANDBOX_VENUES) {
    const u = served[v];
    if (u) urls[v] = connectorUrlsFor(v, u);
  }
  return urls;
}

/** The venue trade ids of the option trades on the bus, per venue, as they arrive. */
export interface TradeCollector {
  readonly ids: ReadonlyMap<string, readonly string[]>;
  count(): number;
  /** Written to a socket (the sandbox ledger) but not on the bus, and on the bus but not written (`venue:id`). */
  compare(ledger: Readonly<Record<string, readonly string[]>>): { missing: string[]; extra: string[] };
  stop(): Promise<void>;
}

export async function collectOptionTrades(bus: Bus, groupId: string): Promise<TradeCollector> {
  const ids = new Map<string, string[]>();
  const consumer: BusConsumer = await bus.subscribe({
    groupId,
    topics: [TOPICS.option_trade],
    eachBatch: async (batch) => {
      for (const m of batch.messages) {
        const e = decodeMarketEvent(m.topic, m.value);
        if (e.type !== 'option_trade') continue;
        let list = ids.get(e.event.venue);
        if (!list) ids.set(e.event.venue, (list = []));
        list.push(e.event.tradeId);
      }
    },
  });
  return {
    ids,
    count: () => [...ids.values()].reduce((n, list) => n + list.length, 0),
    compare: (ledger) => {
      const missing: string[] = [];
      const extra: string[] = [];
      for (const v of SANDBOX_VENUES) {
        const seen = new Set(ids.get(v) ?? []);
        const written = new Set(ledger[v] ?? []);
        for (const id of written) if (!seen.has(id)) missing.push(`${v}:${id}`);
        for (const id of seen) if (!written.has(id)) extra.push(`${v}:${id}`);
      }
      return { missing, extra };
    },
    stop: () => consumer.stop(),
  };
}
