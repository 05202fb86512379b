/**
 * Market series benchmark: a year of 1-minute BTCUSDT states in an embedded store, then p50 latency of
 * requests over HTTP to the real app listening on loopback (keep-alive; time to the last byte of the body, as
 * a client sees it) of
 *   - /v2/market/bundle at 1h over 8760 hours (all six series, 8,760 points),
 *   - /v2/market/candles at 1m over 500 hours (30,000 points),
 * against a baseline measured in the same run: one `SELECT count()` of market_trades_1m over the same range.
 * The year is written directly as 1-minute states with INSERT … SELECT FROM numbers() (the pipeline backfill,
 * `gex backfill --sandbox --days 365`, takes minutes; the states it produces have the same shape): per minute
 * 4 perp + 4 spot trades, perp stats from 4 venues, liquidations every 5th minute; then OPTIMIZE … FINAL (one
 * row per key, as after background merges).
 * Run: node --import tsx bench/market.ts   (or `npm run bench -- market` once registered)
 */
import { rmSync } from 'node:fs';
import { msInstant, msInt64 } from '../clickhouse/epoch-ms.ts';
import { Agent } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { migrate } from '../clickhouse/migrate.ts';
import { createStore, type Store } from '../clickhouse/store.ts';
import { tempDataPath } from '../clickhouse/testing/temp-store.ts';
import { buildApp } from '../query-api/app.ts';
import { apiConfig } from '../query-api/config.ts';
import { AccountsRepository } from '../query-api/accounts/repository.ts';
import type { ApiInstance } from '../query-api/types.ts';
import { httpGet } from './http-get.ts';

const MIN_S = 60;
const YEAR_MINUTES = 525_600;
const ROUNDS = 30;
const WARMUP = 3;

const VENUES = "['deribit', 'bybit', 'okx', 'binance']";
/** A perp-stats value packed as the MV packs it: ts_ms << 64 | the Float64's bits. */
const PACK = (v: string): string => `bitOr(bitShiftLeft(toUInt128(${msInt64('ts')}), 64), toUInt128(reinterpretAsUInt64(${v})))`;

export async function fillYear(store: Store, fromS: number): Promise<void> {
  const p = { from: fromS, n: YEAR_MINUTES * 8 };
  await store.command(
    `INSERT INTO market_trades_1m
     SELECT 'BTCUSDT', mk, bucket, argMinState(price, bitOr(bitShiftLeft(toUInt128(${msInt64('ts')}), 64), toUInt128(k))), argMaxState(price, bitOr(bitShiftLeft(toUInt128(${msInt64('ts')}), 64), toUInt128(k))), max(price), min(price),
       sum(size), sum(price * size), sumIf(size, k % 2 = 0), sumIf(price * size, k % 2 = 0), sumIf(size, k % 2 = 1), sumIf(price * size, k % 2 = 1),
       toUInt64(count()), max(ts), groupUniqArray(venue), toUInt16(15)
     FROM (
       SELECT number AS k, if(number % 8 < 4, 'perp', 'spot') AS mk, toDateTime({from:UInt32} + intDiv(number, 8) * ${MIN_S}, 'UTC') AS bucket,
         ${msInstant(`toInt64(({from:UInt32} + intDiv(number, 8) * ${MIN_S}) * 1000 + (number % 8) * 7000)`)} AS ts,
         95000 + 5000 * sin(number / 400000) + (number % 13) AS price, 0.01 + (number % 7) / 100 AS size, ${VENUES}[number % 4 + 1] AS venue
       FROM numbers({n:UInt64}))
     GROUP BY mk, bucket
     SETTINGS insert_deduplicate = 0`,
    p,
  );
  await store.command(
    `INSERT INTO market_perp_stats_1m
     SELECT 'BTCUSDT', venue, bucket, max(${PACK('oi')}), max(${PACK('oi_usd')}), min(${PACK('f')}), max(${PACK('f')}), sum(f), toUInt64(count(f)), max(ts)
     FROM (
       SELECT ${VENUES}[number % 4 + 1] AS venue, toDateTime({from:UInt32} + intDiv(number, 4) * ${MIN_S}, 'UTC') AS bucket,
         ${msInstant(`toInt64(({from:UInt32} + intDiv(number, 4) * ${MIN_S}) * 1000 + 59000)`)} AS ts,
         20000.0 + number % 97 AS oi, (20000.0 + number % 97) * 95000 AS oi_usd, 0.0001 + (number % 11) / 1e6 AS f
       FROM numbers({n:UInt64}))
     GROUP BY venue, bucket
     SETTINGS insert_deduplicate = 0`,
    { from: fromS, n: YEAR_MINUTES * 4 },
  );
  await store.command(
    `INSERT INTO market_liquidations_1m
     SELECT 'BTCUSDT', toDateTime({from:UInt32} + number * 5 * ${MIN_S}, 'UTC'), 0.5, 47500, 1, 0.25, 23750, 1,
       ${msInstant(`toInt64(({from:UInt32} + number * 5 * ${MIN_S}) * 1000 + 30000)`)}, ['bybit', 'okx'], toUInt16(6)
     FROM numbers({n:UInt64})
     SETTINGS insert_deduplicate = 0`,
    { from: fromS, n: YEAR_MINUTES / 5 },
  );
  for (const t of ['market_trades_1m', 'market_perp_stats_1m', 'market_liquidations_1m']) await store.command(`OPTIMIZE TABLE ${t} FINAL`);
}

function p(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
}

async function time(fn: () => Promise<void>): Promise<number[]> {
  for (let i = 0; i < WARMUP; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out;
}

export async function runMarketBench(): Promise<void> {
  const dataPath = tempDataPath('gex-bench-market-');
  const store = await createStore({ dataPath });
  try {
    await migrate(store);
    const now = Math.floor(Date.now() / 3_600_000) * 3_600_000 + 1_800_000;
    const fromS = Math.floor(now / 1000) - YEAR_MINUTES * MIN_S;
    const t0 = performance.now();
    await fillYear(store, fromS);
    const fillS = (performance.now() - t0) / 1000;
    const [rows] = await store.query<{ t: string; s: string; l: string }>(
      'SELECT (SELECT toString(count()) FROM market_trades_1m) AS t, (SELECT toString(count()) FROM market_perp_stats_1m) AS s, (SELECT toString(count()) FROM market_liquidations_1m) AS l',
    );

    const repo = new AccountsRepository(store);
    await repo.upsertUser({ userId: 'bench', plan: 'enterprise', status: 'active', evaluation: false });
    const key = (await repo.createKey('bench', 'gex')).key;
    const apps = {
      cold: await buildApp({ store, config: apiConfig({ marketCacheMs: 0 }), logger: false, clock: () => now }),
      cached: await buildApp({ store, config: apiConfig({ marketCacheMs: 30_000 }), logger: false, clock: () => now }),
    };
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const base = { cold: await apps.cold.listen({ host: '127.0.0.1', port: 0 }), cached: await apps.cached.listen({ host: '127.0.0.1', port: 0 }) };
      const get = (which: keyof typeof apps) => async (url: string): Promise<void> => {
        const { status } = await httpGet(agent, new URL(url, base[which]), { 'x-api-key': key });
        if (status !== 200) throw new Error(`${url}: HTTP ${status}`);
      };
      const inject = (app: ApiInstance) => async (url: string): Promise<void> => {
        const res = await app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
        if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
      };
      const bundleUrl = '/v2/market/bundle?symbol=BTCUSDT&interval=1h&hours=8760';
      const candlesUrl = '/v2/market/candles?symbol=BTCUSDT&interval=1m&hours=500';
      const res = await apps.cold.inject({ method: 'GET', url: bundleUrl, headers: { 'x-api-key': key } });
      const body = res.body;
      const cov = (res.json<{ meta: { extra: { coverage: Record<string, number> } } }>()).meta.extra.coverage;
      const bundleMs = await time(() => get('cold')(bundleUrl));
      const candlesMs = await time(() => get('cold')(candlesUrl));
      const bundleCachedMs = await time(() => get('cached')(bundleUrl));
      const candlesCachedMs = await time(() => get('cached')(candlesUrl));
      const bundleInjectMs = await time(() => inject(apps.cold)(bundleUrl));
      const candlesInjectMs = await time(() => inject(apps.cold)(candlesUrl));
      const countYear = await time(async () => {
        await store.query("SELECT count() FROM market_trades_1m WHERE symbol = {s:String} AND bucket >= toDateTime({f:UInt32}, 'UTC')", { s: 'BTCUSDT', f: Math.floor(now / 1000) - 8760 * 3600 });
      });
      const count500 = await time(async () => {
        await store.query("SELECT count() FROM market_trades_1m WHERE symbol = {s:String} AND bucket >= toDateTime({f:UInt32}, 'UTC')", { s: 'BTCUSDT', f: Math.floor(now / 1000) - 500 * 3600 });
      });
      const [load1] = loadavg();
      const f = (x: number): string => `${x.toFixed(1)} ms`;
      const verdict = (xs: readonly number[]): string => (p(xs, 0.5) < 100 ? 'OK' : 'ABOVE');
      const lines = [
        `market bench (embedded chDB; 1 year of 1m BTCUSDT states: market_trades_1m ${rows?.t} rows, market_perp_stats_1m ${rows?.s}, market_liquidations_1m ${rows?.l}; ` +
          `filled in ${fillS.toFixed(1)} s via INSERT … SELECT FROM numbers(); ${cpus().length} cores, load avg ${load1?.toFixed(1) ?? '?'}; ${ROUNDS} rounds after ${WARMUP} warm-up)`,
        `  p50 over HTTP on loopback (keep-alive, to the last byte of the body)`,
        `  bundle 1h x 8760 h (6 series, ${(body.length / 1e6).toFixed(1)} MB, coverage ${JSON.stringify(cov)})`,
        `    cold (cache off: every request rolls up 1m states) : p50 ${f(p(bundleMs, 0.5))}, p90 ${f(p(bundleMs, 0.9))}  target p50 < 100 ms: ${verdict(bundleMs)}`,
        `    server cache (30 s, spec "computed routes")       : p50 ${f(p(bundleCachedMs, 0.5))}, p90 ${f(p(bundleCachedMs, 0.9))}  target p50 < 100 ms: ${verdict(bundleCachedMs)}`,
        `    cold, in-process app.inject (reference: adds the harness' copy and utf-8 decode of the body) : p50 ${f(p(bundleInjectMs, 0.5))}`,
        `  candles 1m x 500 h (30,000 points)`,
        `    cold                                              : p50 ${f(p(candlesMs, 0.5))}, p90 ${f(p(candlesMs, 0.9))}  target p50 < 100 ms: ${verdict(candlesMs)}`,
        `    server cache                                      : p50 ${f(p(candlesCachedMs, 0.5))}, p90 ${f(p(candlesCachedMs, 0.9))}  target p50 < 100 ms: ${verdict(candlesCachedMs)}`,
        `    cold, in-process app.inject (reference)         : p50 ${f(p(candlesInjectMs, 0.5))}`,
        `  baseline SELECT count() market_trades_1m, 8760 h     : p50 ${f(p(countYear, 0.5))}  bundle cold = ${(p(bundleMs, 0.5) / p(countYear, 0.5)).toFixed(1)}x, cached = ${(p(bundleCachedMs, 0.5) / p(countYear, 0.5)).toFixed(1)}x`,
        `  baseline SELECT count() market_trades_1m, 500 h      : p50 ${f(p(count500, 0.5))}  candles cold = ${(p(candlesMs, 0.5) / p(count500, 0.5)).toFixed(1)}x, cached = ${(p(candlesCachedMs, 0.5) / p(count500, 0.5)).toFixed(1)}x`,
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
    } finally {
      agent.destroy();
      await apps.cold.close();
      await apps.cached.close();
    }
  } finally {
    await store.close();
    rmSync(dataPath, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runMarketBench();
}
