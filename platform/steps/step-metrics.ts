import { Counter, Histogram } from 'prom-client';
import { metricsRegistry, registeredMetric } from '../metrics/registry.ts';
import { METRIC } from '../metrics/names.ts';

/** Outcome label of one attempt of a step. `retry`: failed and tried again; `failed`: failed for good. */
export type StepOutcome = 'ok' | 'drop' | 'dead_letter' | 'retry' | 'failed';

/** Metrics of every pipeline step run through runStep (platform/steps/step-runner.ts), labelled by step name. */
export const stepMetrics = {
  duration: registeredMetric(
    METRIC.stepDuration,
    () =>
      new Histogram({
        name: METRIC.stepDuration,
        help: 'Duration of one attempt of a pipeline step, by step and outcome (ok, drop, dead_letter, retry, failed)',
        labelNames: ['step', 'outcome'] as const,
        buckets: [0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        registers: [metricsRegistry],
      }),
  ),
  retries: registeredMetric(
    METRIC.stepRetries,
    () =>
      new Counter({
        name: METRIC.stepRetries,
        help: 'Failed step attempts that were retried after the shared backoff',
        labelNames: ['step'] as const,
        registers: [metricsRegistry],
      }),
  ),
  skipped: registeredMetric(
    METRIC.stepSkipped,
    () =>
      new Counter({
        name: METRIC.stepSkipped,
        help: 'Step inputs dropped (skip classification or a drop result)',
        labelNames: ['step'] as const,
        registers: [metricsRegistry],
      }),
  ),
  deadLetters: registeredMetric(
    METRIC.stepDeadLetters,
    () =>
      new Counter({
        name: METRIC.stepDeadLetters,
        help: 'Step inputs sent to the dead-letter hook',
        labelNames: ['step'] as const,
        registers: [metricsRegistry],
      }),
  ),
};
