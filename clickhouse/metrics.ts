import { Counter, Histogram } from 'prom-client';
import { metricsRegistry } from '../ops/floor/metrics/registry.ts';

/** Store metrics, registered once per process on the shared registry. */
export const storeMetrics = {
  insertDuration: new Histogram({
    name: 'store_insert_duration_seconds',
    help: 'Duration of one batched insert into ClickHouse',
    labelNames: ['table'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [metricsRegistry],
  }),
  insertedRows: new Counter({
    name: 'store_inserted_rows_total',
    help: 'Rows sent to ClickHouse in successful inserts (before deduplication)',
    labelNames: ['table'] as const,
    registers: [metricsRegistry],
  }),
  queryDuration: new Histogram({
    name: 'store_query_duration_seconds',
    help: 'Duration of one ClickHouse read query',
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [metricsRegistry],
  }),
  errors: new Counter({
    name: 'store_errors_total',
    help: 'Failed ClickHouse operations',
    labelNames: ['op'] as const,
    registers: [metricsRegistry],
  }),
} as const;
