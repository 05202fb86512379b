/** What the role outage test polls: a process's counters, the stored snapshots, the API's answers. */
import type { Store } from '#clickhouse/store.ts';
import { msInt64 } from '#clickhouse/epoch-ms.ts';
import { parseExposition, sumOf } from '../../soak/prom-text.ts';

/** Sum of a metric over every label set matching `labels`, from a /metrics URL (null: no answer within 5 s). */
export async function metricTotal(url: string, name: string, labels: Readonly<Record<string, string>> = {}): Promise<number | null> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
    const samples = parseExposition(await res.text());
    return sumOf(samples, name, (l) => Object.entries(labels).every(([k, v]) => l[k] === v)) ?? 0;
  } catch {
    return null;
  }
}

/** The newest completed snapshot tick (gamma_flow, the cycle's completion marker) per symbol. */
export async function latestSnapshots(store: Store): Promise<Map<string, number>> {
  const rows = await store.query<{ symbol: string; t: string }>(
    `SELECT symbol, toString(${msInt64('max(computed_at)')}) AS t FROM gamma_flow GROUP BY symbol`,
  );
  return new Map(rows.map((r) => [r.symbol, Number(r.t)]));
}

/** Status of a GET with the API key (0: no answer within 3 s). */
export async function status(url: string, apiKey: string): Promise<number> {
  try {
    const res = await fetch(url, { headers: { 'X-API-Key': apiKey }, signal: AbortSignal.timeout(3000) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

/** The /v2 routes the test asks of an API: health, the trade tape, the GEX levels. */
export const V2_PATHS = ['/v2/health', '/v2/tape/recent?symbol=BTCUSDT&limit=20', '/v2/gex/levels?symbol=BTCUSDT'] as const;

/** True when every V2_PATHS route answers 200. */
export async function servesV2(apiUrl: string, apiKey: string): Promise<boolean> {
  const got = await Promise.all(V2_PATHS.map((p) => status(`${apiUrl}${p}`, apiKey)));
  return got.every((s) => s === 200);
}
