/** Prometheus metrics of the WebSocket feed (platform/metrics/registry.ts). */
import { Counter, Gauge, Histogram } from 'prom-client';
import { METRIC } from '#platform/metrics/names.ts';
import { metricsRegistry, registeredMetric } from '#platform/metrics/registry.ts';

const registers = [metricsRegistry];

export const wsMetrics = {
  connections: registeredMetric(
    METRIC.wsConnections,
    () =>
      new Gauge({
        name: METRIC.wsConnections,
        help: 'Open authenticated WebSocket sessions by plan level',
        labelNames: ['level'] as const,
        registers,
      }),
  ),
  subscriptions: registeredMetric(
    METRIC.wsSubscriptions,
    () => new Gauge({ name: METRIC.wsSubscriptions, help: 'Active subscriptions by channel', labelNames: ['channel'] as const, registers }),
  ),
  messages: registeredMetric(
    METRIC.wsMessagesSent,
    () =>
      new Counter({
        name: METRIC.wsMessagesSent,
        help: 'Messages written to WebSocket clients by kind',
        labelNames: ['kind'] as const,
        registers,
      }),
  ),
  bytes: registeredMetric(
    METRIC.wsBytesSent,
    () => new Counter({ name: METRIC.wsBytesSent, help: 'Bytes written to WebSocket clients (payload)', registers }),
  ),
  slowDisconnects: registeredMetric(
    METRIC.wsSlowConsumerDisconnects,
    () => new Counter({ name: METRIC.wsSlowConsumerDisconnects, help: 'Sessions closed because their send buffer was full', registers }),
  ),
  skipped: registeredMetric(
    METRIC.wsFeedSkipped,
    () =>
      new Counter({
        name: METRIC.wsFeedSkipped,
        help: 'Bus messages the feed could not decode or render, by stream',
        labelNames: ['stream'] as const,
        registers,
      }),
  ),
  dropped: registeredMetric(
    METRIC.wsFeedDropped,
    () =>
      new Counter({
        name: METRIC.wsFeedDropped,
        help: 'Bus messages not sent because they waited longer than the feed age bound (the channel seq still advances), by stream',
        labelNames: ['stream'] as const,
        registers,
      }),
  ),
  closes: registeredMetric(
    METRIC.wsCloses,
    () =>
      new Counter({ name: METRIC.wsCloses, help: 'Sessions closed by the server by close code', labelNames: ['code'] as const, registers }),
  ),
  fanoutSeconds: registeredMetric(
    METRIC.wsFanout,
    () =>
      new Histogram({
        name: METRIC.wsFanout,
        help: 'Bus receive to socket write of the last subscriber of a notification, by channel kind',
        labelNames: ['kind'] as const,
        buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
        registers,
      }),
  ),
};
