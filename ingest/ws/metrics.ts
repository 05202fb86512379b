import { Counter, Gauge, Histogram } from 'prom-client';
import { metricsRegistry } from '../../ops/floor/metrics/registry.ts';

/** Connection-level ingest metrics, labelled by venue. Registered once per process on metricsRegistry. */

function counter(name: string, help: string, labelNames: readonly string[] = ['venue']): Counter<string> {
  const existing = metricsRegistry.getSingleMetric(name);
  if (existing instanceof Counter) return existing;
  return new Counter({ name, help, labelNames: [...labelNames], registers: [metricsRegistry] });
}

function gauge(name: string, help: string): Gauge<string> {
  const existing = metricsRegistry.getSingleMetric(name);
  if (existing instanceof Gauge) return existing;
  return new Gauge({ name, help, labelNames: ['venue'], registers: [metricsRegistry] });
}

function histogram(name: string, help: string, buckets: readonly number[], labelNames: readonly string[]): Histogram<string> {
  const existing = metricsRegistry.getSingleMetric(name);
  if (existing instanceof Histogram) return existing;
  return new Histogram({ name, help, labelNames: [...labelNames], buckets: [...buckets], registers: [metricsRegistry] });
}

export const framesTotal = counter('ingest_frames_total', 'WebSocket frames received from a venue');
export const reconnectsTotal = counter('ingest_reconnects_total', 'WebSocket reconnect attempts to a venue');
export const staleReconnectsTotal = counter(
  'ingest_stale_reconnects_total',
  'Connections terminated because the feed went silent for longer than staleMs',
);
export const readPausesTotal = counter(
  'ingest_read_pauses_total',
  'Times a connection stopped reading its socket because the publisher signalled backpressure',
);
/** Number of open connections of the venue (0 = down). */
export const connectionUp = gauge('ingest_connection_up', 'Open WebSocket connections to a venue');

export const restRequestsTotal = counter('ingest_rest_requests_total', 'REST requests to a venue by outcome', [
  'venue',
  'outcome',
]);
export const restRequestSeconds = histogram(
  'ingest_rest_request_seconds',
  'REST request duration (one attempt)',
  [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  ['venue'],
);

const venueLag = histogram(
  'ingest_venue_lag_seconds',
  'Lag between the venue event time and the local receive time',
  [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  ['venue'],
);

/** Record venue-to-receive lag of one event (negative lags from clock skew are clamped to 0). */
export function observeVenueLag(venue: string, venueTsMs: number, receivedAtMs: number): void {
  if (!Number.isFinite(venueTsMs) || !Number.isFinite(receivedAtMs)) return;
  venueLag.observe({ venue }, Math.max(0, receivedAtMs - venueTsMs) / 1000);
}
