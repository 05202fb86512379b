import { Registry, collectDefaultMetrics, type Metric } from 'prom-client';

/**
 * One prom-client registry per process. Every module registers its metrics here (never on prom-client's
 * global default registry), and the /metrics endpoint serves it.
 */
export const metricsRegistry = new Registry();
metricsRegistry.setDefaultLabels({ service: 'gex' });
collectDefaultMetrics({ register: metricsRegistry });

/**
 * The metric registered under `name`, else the one `create` registers: modules that may be instantiated more
 * than once per process (several apps in tests, re-imports) share one metric instead of failing to register.
 */
export function registeredMetric<M extends Metric>(name: string, create: () => M): M {
  return (metricsRegistry.getSingleMetric(name) as M | undefined) ?? create();
}
