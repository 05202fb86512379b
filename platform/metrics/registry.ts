import { isMainThread } from 'node:worker_threads';
import { withDeadline } from '../deadline.ts';
import {
  AggregatorRegistry,
  Registry,
  collectDefaultMetrics,
  type Metric,
  type MetricObjectWithValues,
  type MetricValue,
} from 'prom-client';

/**
 * One prom-client registry per thread. Every module registers its metrics here (never on prom-client's global
 * default registry), and the /metrics endpoint serves it merged with the registries of the process's other threads
 * (processMetrics). The Node.js process metrics (CPU, memory, event loop) are collected on the main thread only: a
 * worker would report the same process twice.
 */
export const metricsRegistry = new Registry();
metricsRegistry.setDefaultLabels({ service: 'gex' });
if (isMainThread) collectDefaultMetrics({ register: metricsRegistry });

/**
 * The metric registered under `name`, else the one `create` registers: modules that may be instantiated more
 * than once per process (several apps in tests, re-imports) share one metric instead of failing to register.
 */
export function registeredMetric<M extends Metric>(name: string, create: () => M): M {
  return (metricsRegistry.getSingleMetric(name) as M | undefined) ?? create();
}

type ThreadMetrics = () => Promise<readonly MetricObjectWithValues<MetricValue<string>>[]>;
const threads = new Set<ThreadMetrics>();

/** Adds another thread's registry (its getMetricsAsJSON, asked over its port) to processMetrics; returns the removal. */
export function addThreadMetrics(source: ThreadMetrics): () => void {
  threads.add(source);
  return () => void threads.delete(source);
}

/**
 * The process's metrics as one registry: this thread's, merged with every added thread's (series with the same
 * name and labels are summed, as prom-client's AggregatorRegistry does for cluster workers). A thread that does not
 * answer within 2 s is left out of that scrape.
 */
export async function processMetrics(): Promise<Registry> {
  if (threads.size === 0) return metricsRegistry;
  const others = await Promise.all([...threads].map((t) => withDeadline(t(), 2000).catch(() => [])));
  return AggregatorRegistry.aggregate([await metricsRegistry.getMetricsAsJSON(), ...others.map((o) => [...o])]);
}
