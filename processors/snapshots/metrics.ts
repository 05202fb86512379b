import { Counter, Gauge, Histogram } from 'prom-client';
import { metricsRegistry } from '#platform/metrics/registry.ts';
import { METRIC } from '#platform/metrics/names.ts';

const lastComputedAt = new Map<string, number>();

/** Remember the newest stored snapshot of a symbol; the age gauge is computed from it on every scrape. */
export function recordSnapshotAt(symbol: string, computedAt: number): void {
  if (computedAt > (lastComputedAt.get(symbol) ?? Number.NEGATIVE_INFINITY)) lastComputedAt.set(symbol, computedAt);
}

/** Snapshot-processor metrics (registered once per process on the shared registry). */
export const snapshotMetrics = {
  cycleDuration: new Histogram({
    name: METRIC.snapshotCycleDuration,
    help: 'Duration of one snapshot cycle for one symbol (chain, inventory query, rows, inserts, publish)',
    labelNames: ['symbol', 'source'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [metricsRegistry],
  }),
  written: new Counter({
    name: METRIC.snapshotsWritten,
    help: 'Snapshots stored (one per symbol and tick)',
    labelNames: ['symbol', 'source'] as const,
    registers: [metricsRegistry],
  }),
  skipped: new Counter({
    name: METRIC.snapshotTicksSkipped,
    help: 'Aligned ticks not computed: reason no_data (no fresh chain or spot), out_of_window (missed beyond the catch-up window) or tick_failed (an error ended the tick; the loop goes on)',
    labelNames: ['symbol', 'reason'] as const,
    registers: [metricsRegistry],
  }),
  offsetLookupErrors: new Counter({
    name: METRIC.snapshotOffsetLookupErrors,
    help: "Failed look-ups of the raw writer's committed offsets (broker down or coordinator moving), retried: where = drain (before a tick) or commit_gate (before the state consumer commits)",
    labelNames: ['where'] as const,
    registers: [metricsRegistry],
  }),
  drainUnconfirmed: new Counter({
    name: METRIC.snapshotDrainUnconfirmed,
    help: 'Ticks computed from what is stored without confirming the raw writer drained (timeout or broker outage)',
    registers: [metricsRegistry],
  }),
  announceFailures: new Counter({
    name: METRIC.snapshotAnnounceFailures,
    help: 'Stored snapshots whose announcement on analytics.snapshots.v1 failed or did not complete within 2 s (broker outage); the cycle goes on',
    registers: [metricsRegistry],
  }),
  instruments: new Gauge({
    name: METRIC.snapshotInstruments,
    help: 'Instruments in the last snapshot per symbol and venue',
    labelNames: ['symbol', 'venue'] as const,
    registers: [metricsRegistry],
  }),
  lastSnapshotAge: new Gauge({
    name: METRIC.snapshotAge,
    help: 'Age of the newest stored snapshot per symbol (now − computed_at)',
    labelNames: ['symbol'] as const,
    registers: [metricsRegistry],
    collect() {
      const now = Date.now();
      for (const [symbol, t] of lastComputedAt) this.set({ symbol }, (now - t) / 1000);
    },
  }),
  coverage: new Gauge({
    name: METRIC.snapshotFlowCoverage,
    help: 'Flow-model coverage Σ|dealer inventory| / ΣOI in the last snapshot',
    labelNames: ['symbol'] as const,
    registers: [metricsRegistry],
  }),
  leaseHeld: new Gauge({
    name: METRIC.snapshotLeaseHeld,
    help: 'Snapshot lease (Kafka): 1 while this process runs the snapshot processor, 0 while it stands by (processors/snapshots/leased.ts)',
    registers: [metricsRegistry],
  }),
};
