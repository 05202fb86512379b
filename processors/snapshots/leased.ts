/**
 * The snapshot processor under a lease, for several `gex processors` on one Kafka cluster. A symbol's cycle needs
 * the state of every venue (tickers, index prices, perp marks), and the state topics are keyed venue:symbol, so the
 * members of one consumer group would each hold a part of every symbol's state and compute snapshots from part
 * of the venues. Instead one process holds the lease (partition 0 of analytics.snapshots.v1 in the group
 * gex-snapshots-lease, bus/lease.ts) and runs the whole processor (all state partitions, every symbol); the others
 * stand by. When the holder stops, its lease moves at once; when it dies, within the consumer session timeout; the
 * new holder rebuilds the state from the raw tables and computes the missed ticks from the store (processor.ts).
 * The raw writers are not leased: every instance shares the raw-writer group's partitions.
 */
import type { Bus } from '#bus/types.ts';
import type { Store } from '#clickhouse/store.ts';
import { holdLease, type Lease } from '#bus/lease.ts';
import { childLogger } from '#platform/log.ts';
import { TOPICS } from '#schemas/events.ts';
import { snapshotMetrics } from './metrics.ts';
import { startSnapshotProcessor, type SnapshotProcessorOptions } from './processor.ts';

export const SNAPSHOT_LEASE_GROUP = 'gex-snapshots-lease';

const log = childLogger('snapshots');

/** On the in-process bus (one process, nothing to share with) the processor starts at once and holds the lease for good. */
export async function startLeasedSnapshotProcessor(bus: Bus, store: Store, opts: SnapshotProcessorOptions = {}): Promise<Lease> {
  if (bus.kind === 'memory') {
    const processor = await startSnapshotProcessor(bus, store, opts);
    snapshotMetrics.leaseHeld.set(1);
    return { held: () => true, stop: () => processor.stop() };
  }
  snapshotMetrics.leaseHeld.set(0);
  return holdLease(bus, {
    groupId: SNAPSHOT_LEASE_GROUP,
    topic: TOPICS.snapshot,
    onAcquired: async () => {
      log.info({ group: SNAPSHOT_LEASE_GROUP }, 'snapshot lease acquired: this process computes the GEX snapshots');
      const processor = await startSnapshotProcessor(bus, store, opts);
      snapshotMetrics.leaseHeld.set(1);
      return async () => {
        await processor.stop();
        snapshotMetrics.leaseHeld.set(0);
        log.info({ group: SNAPSHOT_LEASE_GROUP }, 'snapshot lease released: this process stands by');
      };
    },
  });
}
