/** Prometheus metrics of replays (platform/metrics/registry.ts), by transport: `ws` (public/replay) or `http` (GET /v2/replay). */
import { Counter, Gauge } from 'prom-client';
import { METRIC } from '#platform/metrics/names.ts';
import { metricsRegistry, registeredMetric } from '#platform/metrics/registry.ts';

const registers = [metricsRegistry];

export type ReplayTransport = 'ws' | 'http';

export const replayMetrics = {
  active: registeredMetric(
    METRIC.replaysActive,
    () => new Gauge({ name: METRIC.replaysActive, help: 'Replays running, by transport', labelNames: ['transport'] as const, registers }),
  ),
  ended: registeredMetric(
    METRIC.replays,
    () =>
      new Counter({
        name: METRIC.replays,
        help: 'Replays ended, by transport and status (completed, stopped, failed, refused)',
        labelNames: ['transport', 'status'] as const,
        registers,
      }),
  ),
  messages: registeredMetric(
    METRIC.replayMessages,
    () =>
      new Counter({
        name: METRIC.replayMessages,
        help: 'Replay messages sent, by transport',
        labelNames: ['transport'] as const,
        registers,
      }),
  ),
  threadEnds: registeredMetric(
    METRIC.replayThreadEnds,
    () =>
      new Counter({
        name: METRIC.replayThreadEnds,
        help: 'Replay threads that ended by themselves (an error in them): their replays failed, the next replay starts a new thread',
        registers,
      }),
  ),
};
