/** Prometheus metrics of the WebSocket feed (ops/floor/metrics/registry.ts). */
import { Counter, Gauge, Histogram } from 'prom-client';
import { metricsRegistry, registeredMetric } from '../../ops/floor/metrics/registry.ts';

const registers = [metricsRegistry];

export const wsMetrics = {
  connections: registeredMetric('gex_ws_connections', () => new Gauge({ name: 'gex_ws_connections', help: 'Open authenticated WebSocket sessions by plan level', labelNames: ['level'] as const, registers })),
  subscriptions: registeredMetric('gex_ws_subscriptions', () => new Gauge({ name: 'gex_ws_subscriptions', help: 'Active subscriptions by channel', labelNames: ['channel'] as const, registers })),
  messages: registeredMetric('gex_ws_messages_sent_total', () => new Counter({ name: 'gex_ws_messages_sent_total', help: 'Messages written to WebSocket clients by kind', labelNames: ['kind'] as const, registers })),
  bytes: registeredMetric('gex_ws_bytes_sent_total', () => new Counter({ name: 'gex_ws_bytes_sent_total', help: 'Bytes written to WebSocket clients (payload)', registers })),
  slowDisconnects: registeredMetric('gex_ws_slow_consumer_disconnects_total', () => new Counter({ name: 'gex_ws_slow_consumer_disconnects_total', help: 'Sessions closed because their send buffer was full', registers })),
  skipped: registeredMetric('gex_ws_feed_skipped_total', () => new Counter({ name: 'gex_ws_feed_skipped_total', help: 'Bus messages the feed could not decode or render, by stream', labelNames: ['stream'] as const, registers })),
  closes: registeredMetric('gex_ws_closes_total', () => new Counter({ name: 'gex_ws_closes_total', help: 'Sessions closed by the server by close code', labelNames: ['code'] as const, registers })),
  fanoutSeconds: registeredMetric('gex_ws_fanout_seconds', () =>
    new Histogram({
      name: 'gex_ws_fanout_seconds',
      help: 'Bus receive to socket write of the last subscriber of a notification, by channel kind',
      labelNames: ['kind'] as const,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers,
    }),
  ),
};
