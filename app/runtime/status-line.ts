/**
 * The roles' status line for a terminal, from readings of the process's own metrics (app/runtime/status-metrics.ts):
 * `ingest 812 ev/s · bus lag 0 · snapshot age BTCUSDT 8s ETHUSDT 8s · api 0.3 req/s`. Pure: readings in, text out.
 * A part is present only when the process runs the role that has it.
 */

/** The metrics behind the line at one instant; a field is absent when the process does not run its role. */
export interface StatusReading {
  /** gex_ingest_events_total, summed over venues and types. */
  readonly ingestEvents?: number;
  /** gex_bus_consumer_lag_messages, summed over topics, groups and partitions (absent: no consumer to measure). */
  readonly busLag?: number;
  /** gex_snapshot_age_seconds per symbol (symbols without a snapshot yet are missing). */
  readonly snapshotAges?: ReadonlyMap<string, number>;
  /** gex_api_request_duration_seconds count, summed over routes and statuses. */
  readonly apiRequests?: number;
}

/** What the line shows: rates over the last interval, lag and snapshot ages now. */
export interface Status {
  readonly eventsPerSecond?: number;
  readonly busLag?: number;
  /** Every configured symbol in order, with the age of its newest snapshot in seconds (null: none yet). */
  readonly snapshotAges?: readonly (readonly [symbol: string, ageSeconds: number | null])[];
  readonly apiRequestsPerSecond?: number;
}

/** Counter increase per second; a counter that went down (a reset) counts from zero. */
function ratePerSecond(before: number | undefined, after: number, seconds: number): number {
  const increase = before === undefined || after < before ? after : after - before;
  return seconds > 0 ? increase / seconds : 0;
}

/** The status between two readings `seconds` apart, snapshot ages listed for `symbols` in their order. */
export function statusBetween(before: StatusReading, after: StatusReading, seconds: number, symbols: readonly string[]): Status {
  const ages = after.snapshotAges;
  return {
    ...(after.ingestEvents !== undefined ? { eventsPerSecond: ratePerSecond(before.ingestEvents, after.ingestEvents, seconds) } : {}),
    ...(after.busLag !== undefined ? { busLag: after.busLag } : {}),
    ...(ages !== undefined ? { snapshotAges: symbols.map((s) => [s, ages.get(s) ?? null] as const) } : {}),
    ...(after.apiRequests !== undefined ? { apiRequestsPerSecond: ratePerSecond(before.apiRequests, after.apiRequests, seconds) } : {}),
  };
}

/** A rate: whole numbers from 10 up, one decimal below (`0.0`: some, under 0.05/s; `0`: none). */
export function formatRate(perSecond: number): string {
  if (perSecond === 0) return '0';
  const tenths = Math.round(perSecond * 10) / 10;
  return tenths >= 10 ? String(Math.round(perSecond)) : tenths.toFixed(1);
}

/** An age: seconds below 100 s, minutes below 100 min, hours above; `-` for none. */
export function formatAge(seconds: number | null): string {
  if (seconds === null) return '-';
  if (seconds < 99.5) return `${Math.round(seconds)}s`;
  if (seconds < 5970) return `${Math.round(seconds / 60)}m`;
  return `${Math.round(seconds / 3600)}h`;
}

/** The status as one line; empty when the process runs nothing the line reports on. */
export function formatStatusLine(status: Status): string {
  const parts: string[] = [];
  if (status.eventsPerSecond !== undefined) parts.push(`ingest ${formatRate(status.eventsPerSecond)} ev/s`);
  if (status.busLag !== undefined) parts.push(`bus lag ${status.busLag}`);
  if (status.snapshotAges !== undefined) {
    const ages = status.snapshotAges.map(([symbol, age]) => `${symbol} ${formatAge(age)}`);
    parts.push(`snapshot age ${ages.length > 0 ? ages.join(' ') : '-'}`);
  }
  if (status.apiRequestsPerSecond !== undefined) parts.push(`api ${formatRate(status.apiRequestsPerSecond)} req/s`);
  return parts.join(' · ');
}
