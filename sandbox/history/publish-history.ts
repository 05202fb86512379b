import type { Store } from '#clickhouse/store.ts';
import type { Bus } from '#bus/types.ts';
import type { MarketEvent, MarketSymbol } from '#schemas/events.ts';
import { EventPublisher } from '#ingest/pipeline/event-publisher.ts';
import type { SandboxVenue } from '../market/venues.ts';
import { isFree, occupiedSpans } from './existing.ts';
import type { ProgressState } from './progress.ts';
import { minuteSource, type BackfillModel } from './source.ts';

export interface BackfillOptions {
  readonly store: Store;
  readonly symbols: readonly MarketSymbol[];
  /** Sandbox venues to simulate; default every sandbox venue. */
  readonly venues?: readonly SandboxVenue[];
  /** [fromMs, toMs), floored to minutes. */
  readonly fromMs: number;
  readonly toMs: number;
  readonly model: BackfillModel;
  readonly seed: number;
  /** Fast model: trades per minute per venue book. */
  readonly tradesPerMinute: number;
  readonly partitions?: number;
  readonly onProgress?: (s: ProgressState) => void;
}

/** Where the history goes: a bus whose consumer stores it, and how far that consumer has got. */
export interface HistorySink {
  readonly bus: Bus;
  /** Events stored so far by the consumer of `bus`. */
  stored(): number;
  /** Events published to `bus` and not yet committed by its consumer. */
  pending(): Promise<number>;
}

export interface PublishResult {
  readonly published: number;
  /** Events not published because their minute already held data. */
  readonly skipped: number;
}

export const MINUTE_MS = 60_000;
/** Events published but not yet stored before the generator waits for the consumer (bounds memory). */
const MAX_AHEAD = 150_000;
const RESUME_AHEAD = 50_000;

const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Publishes sandbox history of [fromMs, toMs) to `sink.bus` (model events -> Avro encode -> bus) and waits until
 * the sink's consumer has committed all of it. Minutes that already hold trades of a symbol are skipped (a
 * re-run does not count anything twice). The generator runs at most MAX_AHEAD events ahead of the store.
 */
export async function publishHistory(o: BackfillOptions, sink: HistorySink): Promise<PublishResult> {
  const fromMs = Math.floor(o.fromMs / MINUTE_MS) * MINUTE_MS;
  const toMs = Math.floor(o.toMs / MINUTE_MS) * MINUTE_MS;
  const spans = await occupiedSpans(o.store, o.symbols, fromMs, toMs);
  const publisher = new EventPublisher(sink.bus, { maxBatch: 10_000, lingerMs: 50, highWaterMark: 200_000 });
  const source = minuteSource({
    model: o.model,
    seed: o.seed,
    startMs: fromMs,
    symbols: o.symbols,
    tradesPerMinute: o.tradesPerMinute,
    ...(o.venues ? { venues: o.venues } : {}),
  });
  let published = 0;
  let skipped = 0;
  const state = (): ProgressState => ({
    doneMs: source.now - fromMs,
    totalMs: toMs - fromMs,
    published,
    stored: sink.stored(),
    atMs: source.now,
  });
  try {
    while (source.now < toMs) {
      const events: MarketEvent[] = [];
      for (const e of source.next()) {
        if (e.event.ts >= toMs) continue;
        if (isFree(spans, e.event.symbol, e.event.ts)) events.push(e);
        else skipped++;
      }
      published += events.length;
      const wait = publisher.add(events);
      if (wait) await wait;
      if (published - sink.stored() > MAX_AHEAD) {
        // The generator never yields on its own: let the bus and the consumer catch up.
        await publisher.flush();
        while (published - sink.stored() > RESUME_AHEAD) {
          o.onProgress?.(state());
          await pause(5);
        }
      }
      o.onProgress?.(state());
    }
    await publisher.flush();
    while ((await sink.pending()) > 0) {
      o.onProgress?.(state());
      await pause(50);
    }
  } finally {
    await publisher.close().catch(() => undefined);
  }
  return { published, skipped };
}
