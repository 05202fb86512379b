import { Counter, Gauge } from 'prom-client';
import { metricsRegistry } from '#platform/metrics/registry.ts';
import { METRIC } from '#platform/metrics/names.ts';
import { CounterTallies, type CounterSeries } from '#platform/metrics/counter-tally.ts';

/** What each open event publisher holds in memory (buffered, or sent and not yet acknowledged): read at each scrape. */
export const publishBacklogs = new Set<() => number>();

/** Events published, counted per run of a frame's events through a tally (platform/metrics/counter-tally.ts). */
const events = new CounterTallies({
  name: METRIC.ingestEvents,
  help: 'Normalized events published, by venue and event type',
  labelNames: ['venue', 'type'] as const,
  registers: [metricsRegistry],
});
const eventSeries = new Map<string, Map<string, CounterSeries>>();

/** The gex_ingest_events_total series of one venue and event type (two map look-ups once resolved). */
export function publishedEventsOf(venue: string, type: string): CounterSeries {
  let byType = eventSeries.get(venue);
  if (byType === undefined) eventSeries.set(venue, (byType = new Map()));
  let series = byType.get(type);
  if (series === undefined) byType.set(type, (series = events.series({ venue, type })));
  return series;
}

export const ingestMetrics = {
  deadLetters: new Counter({
    name: METRIC.ingestParseErrors,
    help: 'Frames that failed to parse or validate and went to the dead-letter topic, by venue and reason class',
    labelNames: ['venue', 'reason'] as const,
    registers: [metricsRegistry],
  }),
  spoolBytes: new Gauge({
    name: METRIC.ingestSpoolBytes,
    help: 'Bytes in the publish spool: messages held on disk while the bus refuses or stalls (0 = publishing directly)',
    registers: [metricsRegistry],
  }),
  publishBacklog: new Gauge({
    name: METRIC.ingestPublishBacklog,
    help: 'Messages the event publisher holds in memory: buffered, or sent to the bus and not yet acknowledged',
    registers: [metricsRegistry],
    collect() {
      let n = 0;
      for (const held of publishBacklogs) n += held();
      this.set(n);
    },
  }),
  spooled: new Counter({
    name: METRIC.ingestSpooledMessages,
    help: 'Messages written to the publish spool',
    registers: [metricsRegistry],
  }),
};

/** A low-cardinality label from a dead-letter reason: the text before the first ':' (e.g. 'unknown channel'). */
export function reasonClass(reason: string): string {
  const head = reason.split(':', 1)[0] ?? reason;
  return head.trim().slice(0, 40) || 'unknown';
}
