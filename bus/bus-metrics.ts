import { withDeadline } from '#platform/deadline.ts';
import { Counter, Gauge } from 'prom-client';
import { metricsRegistry } from '#platform/metrics/registry.ts';
import { METRIC } from '#platform/metrics/names.ts';
import { childLogger } from '#platform/log.ts';
import type { Bus } from './types.ts';

/**
 * Bus metrics on the process registry. Counters are incremented by the bus implementations; the lag gauge is
 * computed on scrape (collect) from `bus.lag()` for every live subscription registered with `trackLag`.
 */

const log = childLogger('bus-metrics');

type BusKind = Bus['kind'];

const published = new Counter({
  name: METRIC.busPublishedMessages,
  help: 'Messages published to the bus',
  labelNames: ['topic', 'bus'] as const,
  registers: [metricsRegistry],
});

const consumed = new Counter({
  name: METRIC.busConsumedMessages,
  help: 'Messages handed to a consumer group handler that returned successfully (committed then, or later by a commit gate)',
  labelNames: ['topic', 'group', 'bus'] as const,
  registers: [metricsRegistry],
});

const publishErrors = new Counter({
  name: METRIC.busPublishErrors,
  help: 'Publish calls that failed',
  labelNames: ['topic', 'bus'] as const,
  registers: [metricsRegistry],
});

const consumerRestarts = new Counter({
  name: METRIC.busConsumerRestarts,
  help: 'Consumers run again after the Kafka client stopped them for good (a non-retriable error, e.g. no group coordinator found while the broker came back)',
  labelNames: ['bus'] as const,
  registers: [metricsRegistry],
});

const producerReplacements = new Counter({
  name: METRIC.busProducerReplacements,
  help: 'Producers replaced after a publish went unanswered past its deadline (kafka bus: PUBLISH_DEADLINE_MS)',
  labelNames: ['bus'] as const,
  registers: [metricsRegistry],
});

const handlerErrors = new Counter({
  name: METRIC.busHandlerErrors,
  help: 'Batch handlers that threw (the batch is redelivered)',
  labelNames: ['topic', 'group', 'bus'] as const,
  registers: [metricsRegistry],
});

const commitErrors = new Counter({
  name: METRIC.busCommitErrors,
  help: 'Deferred commits (SubscribeOptions.commitGate) that failed; retried while the member owns the partition',
  labelNames: ['topic', 'group', 'bus'] as const,
  registers: [metricsRegistry],
});

interface LagSource {
  readonly bus: Bus;
  readonly groupId: string;
  readonly topics: readonly string[];
  /** Look-ups still running from an earlier scrape, per topic: awaited again rather than repeated. */
  readonly inFlight: Map<string, Promise<LagRows>>;
}

type LagRows = Awaited<ReturnType<Bus['lag']>>;

const lagSources = new Set<LagSource>();
/** The whole lag collection of one scrape: every look-up runs at once under this one deadline. */
const LAG_TIMEOUT_MS = 2000;

/** The source's lag of `topic`; a look-up an earlier scrape left running (broker away) is joined, not repeated. */
function lagOf(source: LagSource, topic: string): Promise<LagRows> {
  let p = source.inFlight.get(topic);
  if (p === undefined) {
    p = source.bus.lag(source.groupId, topic).finally(() => source.inFlight.delete(topic));
    source.inFlight.set(topic, p);
  }
  return p;
}

/**
 * Computed on scrape. The look-ups run concurrently under one deadline, so /metrics answers within ~2 s also while
 * the broker is away (one after another, each waiting its 2 s, a process with 35 group-topic pairs took 70 s: every
 * scrape timed out and the process's metrics vanished for the outage).
 */
new Gauge({
  name: METRIC.busConsumerLag,
  help: 'Log end offset minus committed offset per partition (the log end when nothing is committed yet)',
  labelNames: ['topic', 'group', 'partition'] as const,
  registers: [metricsRegistry],
  async collect() {
    this.reset();
    const lookups = [...lagSources].flatMap((source) => source.topics.map((topic) => ({ source, topic })));
    const results = await Promise.allSettled(lookups.map(({ source, topic }) => withDeadline(lagOf(source, topic), LAG_TIMEOUT_MS)));
    let failed = 0;
    let firstError: unknown;
    results.forEach((r, i) => {
      const { source, topic } = lookups[i] as (typeof lookups)[number];
      if (r.status === 'rejected') {
        failed++;
        firstError ??= r.reason;
        return;
      }
      for (const row of r.value) {
        const end = Number(row.end);
        const committed = Number(row.committed);
        const lag = committed < 0 ? end : Math.max(0, end - committed);
        this.set({ topic, group: source.groupId, partition: String(row.partition) }, lag);
      }
    });
    if (failed > 0) log.warn({ err: firstError, failed, of: lookups.length }, 'lag collection failed');
  },
});

/** Counter handles for one bus implementation. */
export interface BusMetrics {
  published(topic: string, count: number): void;
  publishError(topic: string): void;
  consumed(topic: string, groupId: string, count: number): void;
  handlerError(topic: string, groupId: string): void;
  commitError(topic: string, groupId: string): void;
  consumerRestarted(): void;
  producerReplaced(): void;
}

export function busMetrics(bus: BusKind): BusMetrics {
  return {
    published: (topic, count) => published.inc({ topic, bus }, count),
    publishError: (topic) => publishErrors.inc({ topic, bus }),
    consumed: (topic, group, count) => consumed.inc({ topic, group, bus }, count),
    handlerError: (topic, group) => handlerErrors.inc({ topic, group, bus }),
    commitError: (topic, group) => commitErrors.inc({ topic, group, bus }),
    consumerRestarted: () => consumerRestarts.inc({ bus }),
    producerReplaced: () => producerReplacements.inc({ bus }),
  };
}

/** Report the lag of a subscription on scrape until the returned function is called. */
export function trackLag(bus: Bus, groupId: string, topics: readonly string[]): () => void {
  const source: LagSource = { bus, groupId, topics: [...topics], inFlight: new Map() };
  lagSources.add(source);
  return () => {
    lagSources.delete(source);
  };
}
