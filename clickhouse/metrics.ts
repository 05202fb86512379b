import { Counter, Gauge, Histogram } from 'prom-client';
import { metricsRegistry } from '#platform/metrics/registry.ts';
import { METRIC } from '#platform/metrics/names.ts';

/** Store metrics, registered once per process on the shared registry. */
export const storeMetrics = {
  insertDuration: new Histogram({
    name: METRIC.storeInsertDuration,
    help: 'Duration of one batched insert into ClickHouse',
    labelNames: ['table'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [metricsRegistry],
  }),
  insertedRows: new Counter({
    name: METRIC.storeInsertedRows,
    help: 'Rows sent to ClickHouse in successful inserts (before deduplication)',
    labelNames: ['table'] as const,
    registers: [metricsRegistry],
  }),
  queryDuration: new Histogram({
    name: METRIC.storeQueryDuration,
    help: 'Duration of one ClickHouse read query',
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [metricsRegistry],
  }),
  readsWaiting: new Gauge({
    name: METRIC.storeWaitingReads,
    help: "Reads waiting for one of the embedded store's read sessions (STORE_READ_SESSIONS)",
    registers: [metricsRegistry],
  }),
  errors: new Counter({
    name: METRIC.storeErrors,
    help: 'Failed ClickHouse operations',
    labelNames: ['op'] as const,
    registers: [metricsRegistry],
  }),
} as const;
