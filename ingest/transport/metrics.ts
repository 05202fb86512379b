import { Counter, Gauge, Histogram } from 'prom-client';
import { metricsRegistry } from '#platform/metrics/registry.ts';
import { METRIC } from '#platform/metrics/names.ts';
import { BucketHistogram } from '#platform/metrics/bucket-histogram.ts';
import { CounterTallies, type CounterSeries } from '#platform/metrics/counter-tally.ts';

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

/** Frames received, counted per frame through a tally (platform/metrics/counter-tally.ts): framesOf(venue).inc(). */
const frames = new CounterTallies({
  name: METRIC.ingestFrames,
  help: 'WebSocket frames received from a venue',
  labelNames: ['venue'],
  registers: [metricsRegistry],
});
export const framesOf = (venue: string): CounterSeries => frames.series({ venue });
export const ignoredFramesTotal = counter(
  METRIC.ingestIgnoredFrames,
  'Venue frames parsed without events, by kind: ack, pong, heartbeat, venue_error, untracked, info, dropped (left out by rule, e.g. non-market futures trades)',
  ['venue', 'kind'],
);
export const reconnectsTotal = counter(METRIC.ingestReconnects, 'WebSocket reconnect attempts to a venue');
export const staleReconnectsTotal = counter(
  METRIC.ingestStaleReconnects,
  'Connections terminated because the feed went silent for longer than staleMs',
);
export const readPausesTotal = counter(
  METRIC.ingestReadPauses,
  'Times a connection stopped reading its socket because the publisher signalled backpressure',
);
/** Number of open connections of the venue (0 = down). */
export const connectionUp = gauge(METRIC.ingestOpenConnections, 'Open WebSocket connections to a venue');

export const restRequestsTotal = counter(METRIC.ingestRestRequests, 'REST requests to a venue by outcome', ['venue', 'outcome']);
export const restRequestSeconds = histogram(
  METRIC.ingestRestRequestDuration,
  'REST request duration (one attempt)',
  [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  ['venue'],
);

/** Trade-like events dropped because their id was already published (gap-fill overlap, venue re-sends). */
export const duplicateTradesTotal = counter(
  METRIC.ingestDuplicateTrades,
  'Trade-like events not published again: their id was published before',
);
/** Gap fills after a reconnect, by outcome (ok, failed). */
export const gapFillsTotal = counter(METRIC.ingestGapFills, 'REST gap fills run after a reconnect, by outcome', ['venue', 'outcome']);
/** Trades a gap fill published (missed during the outage). */
export const gapFillTradesTotal = counter(METRIC.ingestGapFillTrades, 'Trades recovered by gap fills (published; duplicates excluded)');

const venueLag = BucketHistogram.on(
  metricsRegistry,
  METRIC.ingestVenueLag,
  'Lag between the venue event time and the local receive time',
  [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  'venue',
);

/** One venue's venue-to-receive lag recorder (observed per trade: resolved once, see BucketHistogram). */
export interface VenueLag {
  /** Records the lag of one event (negative lags from clock skew are clamped to 0). */
  observe(venueTsMs: number, receivedAtMs: number): void;
}

export function venueLagOf(venue: string): VenueLag {
  const series = venueLag.series(venue);
  return {
    observe: (venueTsMs, receivedAtMs) => {
      const lagMs = receivedAtMs - venueTsMs;
      if (Number.isFinite(lagMs)) series.observe(lagMs > 0 ? lagMs / 1000 : 0);
    },
  };
}
