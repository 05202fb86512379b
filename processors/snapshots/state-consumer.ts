import { snapshotMetrics } from './metrics.ts';
import type { Bus, BusConsumer, ConsumedBatch } from '#bus/types.ts';
import type { Logger } from '#platform/log.ts';
import { TOPICS } from '#schemas/events.ts';
import { decodeMarketEvent } from '#schemas/event-codec.ts';
import type { SnapshotConfig } from './config.ts';
import { CommittedOffsetsWatch } from './durability.ts';
import type { MarketState } from './state.ts';

export const STATE_TOPICS: readonly string[] = [TOPICS.instrument, TOPICS.option_ticker, TOPICS.index, TOPICS.perp_stats];

/**
 * Consumes the state topics into `state` from the committed offsets. A batch is applied to memory at once and the
 * consumer fetches on; its offsets are committed only after the raw writer (config.durableGroupId) committed past it,
 * i.e. once the events are in ClickHouse, where a restart rebuilds the state from (the bus's deferred commits,
 * SubscribeOptions.commitGate). So the state stays as fresh as the bus also while the raw writer is behind (a broker
 * or store outage and the backlog after it); `gate` aborts the waits (on stop, after a grace).
 */
export function consumeStateTopics(
  bus: Bus,
  cfg: SnapshotConfig,
  state: MarketState,
  gate: AbortSignal,
  log: Logger,
): Promise<BusConsumer> {
  let undecodable = 0;
  let lookupErrors = 0;
  const durable =
    cfg.durableGroupId === null
      ? null
      : new CommittedOffsetsWatch(bus, cfg.durableGroupId, gate, 25, (err, topic) => {
          // Broker errors of the look-up are retried (never confirmed without the commit): the commit waits.
          snapshotMetrics.offsetLookupErrors.inc({ where: 'commit_gate' });
          lookupErrors++;
          if (lookupErrors % 20 === 1) log.warn({ err, topic, lookupErrors }, 'raw writer offsets unavailable; the commit waits');
        });
  return bus.subscribe({
    groupId: cfg.groupId,
    topics: STATE_TOPICS,
    fromBeginning: true,
    maxBatchSize: 5_000,
    eachBatch: async (batch: ConsumedBatch) => {
      for (const m of batch.messages) {
        try {
          state.apply(decodeMarketEvent(m.topic, m.value));
        } catch {
          undecodable++; // the raw writer keeps the bytes in dead_letters
          if (undecodable % 1000 === 1) log.warn({ topic: m.topic, offset: m.offset, undecodable }, 'undecodable message skipped');
        }
      }
    },
    ...(durable === null
      ? {}
      : {
          commitGate: (topic: string, partition: number, lastOffset: string, signal: AbortSignal) =>
            durable.waitPast(topic, partition, lastOffset, signal),
        }),
  });
}
