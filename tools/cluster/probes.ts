/** What the topology test reads: the stored snapshots per tick and their venues, a process's gauge, the API's answers. */
import type { Store } from '#clickhouse/store.ts';
import { msColumn } from '#clickhouse/epoch-ms.ts';

export interface StoredTick {
  readonly symbol: string;
  /** computed_at, epoch ms. */
  readonly t: number;
  /** The venue list of every stored gex_levels row of the tick (comma-joined, sorted): one list when all rows agree. */
  readonly venues: readonly string[];
}

export interface SymbolVenues {
  /** Venues with stored option tickers of the symbol, sorted, comma-joined: what a complete snapshot covers. */
  readonly venues: string;
  /** When the last of these venues sent its first ticker of the symbol (received_at, epoch ms). */
  readonly allSince: number;
}

export async function tickerVenues(store: Store): Promise<Map<string, SymbolVenues>> {
  const rows = await store.query<{ symbol: string; venues: string[]; since: number }>(
    `SELECT symbol, arraySort(groupArray(venue)) AS venues, ${msColumn('max(first)', 'since')}
       FROM (SELECT symbol, venue, min(received_at) AS first FROM option_tickers GROUP BY symbol, venue)
      GROUP BY symbol`,
  );
  return new Map(rows.map((r) => [r.symbol, { venues: r.venues.join(','), allSince: Number(r.since) }]));
}

/**
 * Completed ticks (gex_levels, the as_of index) with the venues their levels were computed from, oldest first.
 * Every stored row counts (no FINAL): two processes that computed one tick from different venues show two lists.
 */
export async function completedTicks(store: Store): Promise<StoredTick[]> {
  const rows = await store.query<{ symbol: string; t: number; venues: string[] }>(
    `SELECT symbol, ${msColumn('computed_at', 't')}, groupUniqArray(arrayStringConcat(arraySort(venues), ',')) AS venues
       FROM gex_levels
      GROUP BY symbol, computed_at
      ORDER BY t`,
  );
  return rows.map((r) => ({ symbol: r.symbol, t: Number(r.t), venues: r.venues }));
}

/** A gauge of a process's /metrics (no labels but the default ones); null when the process does not answer in 15 s. */
export async function gauge(metricsUrl: string, name: string): Promise<number | null> {
  try {
    // A scrape computes the consumer lag from the broker: seconds on a busy machine.
    const text = await (await fetch(metricsUrl, { signal: AbortSignal.timeout(15_000) })).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
    return line === undefined ? null : Number(line.slice(line.lastIndexOf(' ') + 1));
  } catch {
    return null;
  }
}

/** Mean of a histogram of a process's /metrics per label set (`symbol=BTCUSDT,source=live` -> {count, mean}). */
export async function histogramMeans(metricsUrl: string, name: string): Promise<Record<string, { count: number; mean: number }>> {
  const text = await (await fetch(metricsUrl, { signal: AbortSignal.timeout(15_000) })).text();
  const series = (suffix: string): Map<string, number> =>
    new Map(
      text
        .split('\n')
        .filter((l) => l.startsWith(`${name}_${suffix}{`))
        .map((l) => {
          const labels = l
            .slice(l.indexOf('{') + 1, l.lastIndexOf('}'))
            .split(',')
            .filter((pair) => !pair.startsWith('service='))
            .join(',');
          return [labels.replaceAll('"', ''), Number(l.slice(l.lastIndexOf(' ') + 1))] as const;
        }),
    );
  const sums = series('sum');
  const out: Record<string, { count: number; mean: number }> = {};
  for (const [labels, count] of series('count')) out[labels] = { count, mean: (sums.get(labels) ?? NaN) / count };
  return out;
}

export interface LevelsAnswer {
  readonly status: number;
  /** The answer without the per-request meta (timestamp, request id, freshness, rate limit). */
  readonly answer: unknown;
  readonly quotaRemaining: number;
  readonly minuteRemaining: number;
  readonly fallback: boolean;
}

/** GET /v2/gex/levels of one symbol (at `asOf` when given) with the key. */
export async function levels(apiUrl: string, key: string, symbol: string, asOf?: number): Promise<LevelsAnswer> {
  const q = new URLSearchParams({ symbol, ...(asOf !== undefined ? { as_of: new Date(asOf).toISOString() } : {}) });
  const res = await fetch(`${apiUrl}/v2/gex/levels?${q}`, { headers: { 'X-API-Key': key }, signal: AbortSignal.timeout(30_000) });
  const body = (await res.json()) as { data?: unknown; meta?: Record<string, unknown> };
  const meta = body.meta ?? {};
  return {
    status: res.status,
    answer: {
      data: body.data,
      meta: { symbol: meta['symbol'], computed_at: meta['computed_at'], spot_price: meta['spot_price'], source: meta['source'] },
    },
    quotaRemaining: Number(res.headers.get('x-quota-remaining')),
    minuteRemaining: Number(res.headers.get('x-ratelimit-remaining')),
    fallback: res.headers.get('x-ratelimit-fallback') !== null,
  };
}
