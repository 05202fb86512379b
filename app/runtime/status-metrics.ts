import type { Registry } from 'prom-client';
import { METRIC } from '#platform/metrics/names.ts';
import type { StatusReading } from './status-line.ts';

/** Which parts of the status line this process has (the roles it runs). */
export interface StatusParts {
  /** The ingest role: events published per second. */
  readonly ingest: boolean;
  /** The processors role: the age of the newest snapshot per symbol. */
  readonly snapshots: boolean;
  /** The query-api role: /v2 requests per second. */
  readonly api: boolean;
}

interface Sample {
  readonly value: number;
  readonly labels: Partial<Record<string, string | number>>;
  readonly metricName?: string;
}

/** The samples of one metric of the registry, collected as for a scrape; empty when it is not registered. */
async function samples(registry: Registry, name: string): Promise<readonly Sample[]> {
  const metric = registry.getSingleMetric(name);
  return metric === undefined ? [] : (await metric.get()).values;
}

const total = (values: readonly Sample[]): number => values.reduce((sum, v) => sum + v.value, 0);

/**
 * Reads the status line's metrics from the process's own registry (what /metrics would serve, without HTTP).
 * Bus lag is reported whenever this process has a bus subscription (the processors, the API's feeds).
 */
export async function readStatus(registry: Registry, parts: StatusParts): Promise<StatusReading> {
  const lag = await samples(registry, METRIC.busConsumerLag);
  const reading: { -readonly [K in keyof StatusReading]: StatusReading[K] } = {};
  if (parts.ingest) reading.ingestEvents = total(await samples(registry, METRIC.ingestEvents));
  if (lag.length > 0) reading.busLag = total(lag);
  if (parts.snapshots) {
    const ages = await samples(registry, METRIC.snapshotAge);
    reading.snapshotAges = new Map(ages.map((v) => [String(v.labels.symbol), v.value]));
  }
  if (parts.api) {
    const countName = `${METRIC.apiRequestDuration}_count`;
    reading.apiRequests = total((await samples(registry, METRIC.apiRequestDuration)).filter((v) => v.metricName === countName));
  }
  return reading;
}
