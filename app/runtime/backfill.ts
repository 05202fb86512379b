import { publishHistory, type BackfillOptions } from '#sandbox/history/publish-history.ts';
import { RAW_TOPICS, startRawWriter } from '#processors/raw-writer/raw-writer.ts';
import { MemoryBus } from '#bus/memory-bus.ts';
import { ensureProductTopics } from '#bus/topics.ts';
import type { Bus } from '#bus/types.ts';

export type { BackfillOptions } from '#sandbox/history/publish-history.ts';

export interface BackfillResult {
  readonly published: number;
  readonly stored: number;
  /** Events not published because their minute already held data. */
  readonly skipped: number;
  readonly seconds: number;
}

async function uncommitted(bus: Bus, groupId: string): Promise<number> {
  let n = 0;
  for (const topic of RAW_TOPICS) for (const p of await bus.lag(groupId, topic)) n += Number(p.end) - Number(p.committed);
  return n;
}

/**
 * Fills history through the product's own pipeline: the backfill ingester (sandbox model -> Avro -> bus) and
 * the raw writer (bus -> raw tables -> materialized views). It uses its own in-process bus (never the live
 * Kafka topics) and a consumer group named after the run, so its dedup tokens cannot collide with another run's.
 */
export async function runBackfill(o: BackfillOptions): Promise<BackfillResult> {
  const t0 = performance.now();
  const bus = new MemoryBus({ clientId: 'backfill', maxBufferedPerPartition: 400_000 });
  await ensureProductTopics(bus, o.partitions ?? 6);
  let stored = 0;
  const groupId = `backfill-${o.fromMs}-${Date.now()}`;
  const writer = await startRawWriter(bus, o.store, {
    groupId,
    maxBatchSize: 50_000,
    onStored: (_table, rows) => {
      stored += rows.length;
    },
  });
  try {
    const r = await publishHistory(o, { bus, stored: () => stored, pending: () => uncommitted(bus, groupId) });
    return { published: r.published, stored, skipped: r.skipped, seconds: (performance.now() - t0) / 1000 };
  } finally {
    await writer.stop();
    await bus.close();
  }
}
