import type { Store } from '../../clickhouse/store.ts';
import { EventPublisher } from '../../ingest/pipeline/event-publisher.ts';
import { MemoryBus } from '../../ops/bus/memory-bus.ts';
import type { Bus } from '../../ops/bus/types.ts';
import { ensureProductTopics } from '../../ops/runtime/topics.ts';
import type { MarketEvent, MarketSymbol } from '../../schemas/events.ts';
import { RAW_TOPICS, startRawWriter } from '../raw-writer/raw-writer.ts';
import { isFree, occupiedSpans } from './existing.ts';
import type { ProgressState } from './progress.ts';
import type { SandboxVenue } from '../../ingest/sandbox/market/venues.ts';
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

export interface BackfillResult {
  readonly published: number;
  readonly stored: number;
  /** Events not published because their minute already held data. */
  readonly skipped: number;
  readonly seconds: number;
}

const MINUTE_MS = 60_000;
/** Events published but not yet stored before the generator waits for the raw writer (bounds memory). */
const MAX_AHEAD = 150_000;
const RESUME_AHEAD = 50_000;

async function uncommitted(bus: Bus, groupId: string): Promise<number> {
  let n = 0;
  for (const topic of RAW_TOPICS) for (const p of await bus.lag(groupId, topic)) n += Number(p.end) - Number(p.committed);
  return n;
}

/**
 * Fills history through the product's own pipeline: sandbox model events -> Avro encode (EventPublisher) ->
 * bus -> raw writer -> raw tables -> materialized views. It uses its own in-process bus (never the live Kafka
 * topics) and a consumer group named after the run, so its dedup tokens cannot collide with another run's.
 * Minutes that already hold trades of a symbol are skipped (a re-run does not count anything twice).
 */
export async function runBackfill(o: BackfillOptions): Promise<BackfillResult> {
  const t0 = performance.now();
  const fromMs = Math.floor(o.fromMs / MINUTE_MS) * MINUTE_MS;
  const toMs = Math.floor(o.toMs / MINUTE_MS) * MINUTE_MS;
  const spans = await occupiedSpans(o.store, o.symbols, fromMs, toMs);
  const bus = new MemoryBus({ clientId: 'backfill', maxBufferedPerPartition: 400_000 });
  await ensureProductTopics(bus, o.partitions ?? 6);
  let stored = 0;
  const groupId = `backfill-${fromMs}-${Date.now()}`;
  const writer = await startRawWriter(bus, o.store, {
    groupId,
    maxBatchSize: 50_000,
    onStored: (_table, rows) => {
      stored += rows.length;
    },
  });
  const publisher = new EventPublisher(bus, { maxBatch: 10_000, lingerMs: 50, highWaterMark: 200_000 });
  const source = minuteSource({ model: o.model, seed: o.seed, startMs: fromMs, symbols: o.symbols, tradesPerMinute: o.tradesPerMinute, ...(o.venues ? { venues: o.venues } : {}) });
  let published = 0;
  let skipped = 0;
  const state = (): ProgressState => ({ doneMs: source.now - fromMs, totalMs: toMs - fromMs, published, stored, atMs: source.now });
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
      if (published - stored > MAX_AHEAD) {
        // The generator never yields on its own: let the bus and the raw writer catch up.
        await publisher.flush();
        while (published - stored > RESUME_AHEAD) {
          o.onProgress?.(state());
          await new Promise((r) => setTimeout(r, 5));
        }
      }
      o.onProgress?.(state());
    }
    await publisher.flush();
    while ((await uncommitted(bus, groupId)) > 0) {
      o.onProgress?.(state());
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await publisher.close().catch(() => undefined);
    await writer.stop();
    await bus.close();
  }
  return { published, stored, skipped, seconds: (performance.now() - t0) / 1000 };
}
