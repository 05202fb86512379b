/**
 * Where the time of a market read goes (market bench), measured in-process on the same store as the HTTP figures,
 * on the serving path the routes use (query-api/market/serving.ts) or on the roll-up path (series.ts, bundle.ts):
 *   - engine: wall time during which at least one ClickHouse statement of the read was in flight (chDB runs them one
 *     after another), including the RowBinary decode of its result (serving: the parts check, and the roll-up of
 *     the buckets to re-read if any);
 *   - layout: the rest of the read (roll-up: spreading the results onto the grid, CVD, venue masks; serving: writing
 *     re-read rows, rendering changed chunks, the window's summary, CVD, cutting the columns' text);
 *   - json: roll-up: JSON.stringify of the response's `data` (timestamps + every column), what the route's
 *     serializer did; serving: the route's `data` text (timestamps + the served columns' text) encoded to UTF-8
 *     bytes (the rope flattened once, as when it is written to the socket).
 * HTTP minus these three is routing, auth, meta, the envelope and the socket. On a loaded machine wall times stretch;
 * `readCpu` (this process's CPU during the read) does not, much.
 */
import type { Store } from '#clickhouse/store.ts';
import { readBundle } from '#query-api/market/bundle-series.ts';
import type { MarketServing } from '#query-api/market/serving.ts';
import { servedTimestamps } from '#query-api/market/send.ts';
import { timestamps, type Grid } from '#query-api/market/grid.ts';
import { readCandles, SERIES, type TierChoice } from '#query-api/market/series.ts';

export interface Phases {
  readonly engine: number;
  readonly layout: number;
  readonly json: number;
  /** CPU time of this process (JS and chDB's threads) during the read: unlike wall time, barely moved by other load. */
  readonly readCpu: number;
}

/** CPU ms used by this process since `since` (process.cpuUsage()). */
export function cpuMsSince(since: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
}

/** A store that records when each queryColumns call was in flight. */
function timedStore(store: Store): { readonly store: Store; take(): number } {
  let spans: [number, number][] = [];
  const timed: Store = {
    kind: store.kind,
    query: (sql, params) => store.query(sql, params),
    async queryColumns(sql, params, options) {
      const t0 = performance.now();
      try {
        return await store.queryColumns(sql, params, options);
      } finally {
        spans.push([t0, performance.now()]);
      }
    },
    releaseColumns: (result) => store.releaseColumns(result),
    queryBytes: (sql, params) => store.queryBytes(sql, params),
    command: (sql, params) => store.command(sql, params),
    insert: (table, rows, opts) => store.insert(table, rows, opts),
    ping: () => store.ping(),
    close: () => store.close(),
  };
  /** Length of the union of the recorded spans, then forget them. */
  const take = (): number => {
    const s = spans.sort((a, b) => a[0] - b[0]);
    spans = [];
    let total = 0;
    let end = -Infinity;
    for (const [a, b] of s) {
      if (b <= end) continue;
      total += b - Math.max(a, end);
      end = b;
    }
    return total;
  };
  return { store: timed, take };
}

export type Read = 'bundle' | 'candles';

/** One read of `what` on `grid` split into engine, layout and JSON time (ms): the serving path when `serving` is given. */
export async function measurePhases(
  store: Store,
  grid: Grid,
  what: Read,
  tier: TierChoice = 'auto',
  serving?: MarketServing,
): Promise<Phases> {
  const t = timedStore(store);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  if (serving !== undefined) {
    const parts: string[] = [];
    let axis: string;
    if (what === 'bundle') {
      const b = await serving.bundle(t.store, grid, 'BTCUSDT', SERIES);
      for (const [name, s] of b.series) parts.push(`,${JSON.stringify(name)}:${s === null ? 'null' : s.json}`);
      axis = servedTimestamps(grid, b.series.values());
    } else {
      const c = await serving.candles(t.store, grid, 'BTCUSDT', 'perp');
      parts.push(`,${c.body}`);
      axis = c.timestamps;
    }
    const read = performance.now() - t0;
    const readCpu = cpuMsSince(cpu0);
    const engine = t.take();
    const j0 = performance.now();
    let data = `{"symbol":"BTCUSDT","interval":"${grid.interval}","timestamps":${axis}`;
    for (const p of parts) data += p;
    Buffer.from(`${data}}`);
    return { engine, layout: read - engine, json: performance.now() - j0, readCpu };
  }
  const data: Record<string, unknown> = { symbol: 'BTCUSDT', interval: grid.interval, timestamps: timestamps(grid) };
  if (what === 'bundle') {
    const b = await readBundle(t.store, grid, 'BTCUSDT', SERIES, tier);
    for (const [name, s] of b.series) data[name] = s === null ? null : s.columns;
  } else {
    const c = await readCandles(t.store, grid, 'BTCUSDT');
    data['candles'] = c.columns;
  }
  const read = performance.now() - t0;
  const readCpu = cpuMsSince(cpu0);
  const engine = t.take();
  const j0 = performance.now();
  JSON.stringify({ data });
  return { engine, layout: read - engine, json: performance.now() - j0, readCpu };
}
