import { Counter, Gauge } from 'prom-client';
import { withBreaker, type BreakerStore } from '#clickhouse/breaker.ts';
import type { Store } from '#clickhouse/store.ts';
import type { Logger } from '#platform/log.ts';
import { metricsRegistry, registeredMetric } from '#platform/metrics/registry.ts';
import { METRIC } from '#platform/metrics/names.ts';
import type { ApiConfig } from '../config.ts';

const openGauge = (): Gauge =>
  registeredMetric(
    METRIC.apiStoreBreakerOpen,
    () =>
      new Gauge({
        name: METRIC.apiStoreBreakerOpen,
        help: "1 while the API's store circuit is open (reads fail fast with 503 until a health probe answers), else 0",
        registers: [metricsRegistry],
      }),
  );

const transitions = (): Counter<'to'> =>
  registeredMetric(
    METRIC.apiStoreBreakerTransitions,
    () =>
      new Counter({
        name: METRIC.apiStoreBreakerTransitions,
        help: "Transitions of the API's store circuit (to = open, closed)",
        labelNames: ['to'] as const,
        registers: [metricsRegistry],
      }),
  );

/**
 * The store as the API reads it: every read of a ClickHouse server (or another process's store endpoint) answers
 * within STORE_READ_TIMEOUT_MS, and STORE_BREAKER_FAILURES
 * unavailable reads in a row open the circuit (clickhouse/breaker.ts): requests then get 503 UPSTREAM_ERROR with
 * Retry-After at once, until a health probe every STORE_BREAKER_PROBE_MS answers. Logged and measured.
 */
export function apiStore(store: Store, config: ApiConfig, log: Logger): BreakerStore {
  const gauge = openGauge();
  const moves = transitions();
  gauge.set(0);
  return withBreaker(store, {
    // An embedded store runs in this process: it cannot freeze apart from the API, and fails at once when closed.
    readTimeoutMs: store.kind === 'embedded' ? null : config.storeReadTimeoutMs,
    failures: config.storeBreakerFailures,
    probeMs: config.storeBreakerProbeMs,
    onChange: (state, cause) => {
      gauge.set(state === 'open' ? 1 : 0);
      moves.inc({ to: state });
      if (state === 'open') log.warn({ cause }, 'store circuit open: reads fail fast (503) until a health probe answers');
      else log.info('store circuit closed: the store answers again');
    },
  });
}
