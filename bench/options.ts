/**
 * Options chain benchmark (issue: `npm run bench -- options`). A synthetic BTCUSDT chain (4 venues × ~750 = ~3k
 * contracts, books, published greeks on two venues) is stored as the snapshot processor stores it, and
 * BENCH_CHAIN_DAYS (default 30) of history is filled the way the retention tiers hold it (every 30 s for the last
 * 3 days, every 5 min for 35 days, hourly beyond). Then:
 *   - chain snapshot write per tick (rows built from the processor's chain + insert): a 30 s tick, an hour tick (3 tiers);
 *   - over HTTP on loopback (keep-alive, to the last byte): /v2/options/chain (latest, no filter) p50 and its first
 *     request, /v2/options/greeks/gamma p50, venue book and OI by expiry, and `as_of` chain lookups at random instants
 *     over the stored days (each a different chain: cold) p50 / p99;
 *   - baselines in the same run: a bare Fastify route sending the same bytes, `SELECT 1` on the store;
 *   - disk: bytes per day of each tier (system.parts after the fill) and the year's budget.
 * Run: npm run bench -- options   (BENCH_ROUNDS, BENCH_CHAIN_DAYS shorten it)
 */
import { cpus, loadavg } from 'node:os';
import { rmSync } from 'node:fs';
import { migrate } from '#clickhouse/migrate.ts';
import { createStore, type Store } from '#clickhouse/store.ts';
import { tempDataPath } from '#clickhouse/testing/temp-store.ts';
import { syntheticChain } from '#processors/analytics/testing/synthetic-chain.ts';
import { rowsFromChain } from '#processors/snapshots/compute-step.ts';
import { levelsOf } from '#processors/snapshots/levels-step.ts';
import { chainRows } from '#processors/snapshots/option-chain.ts';
import { CHAIN_TIERS, storeChainRows } from '#processors/snapshots/option-chain-record.ts';
import { storeLevelsAndFlow, storeSnapshotRows } from '#processors/snapshots/write-step.ts';
import { buildApp } from '#query-api/app.ts';
import { apiConfig } from '#query-api/config.ts';
import { SnapshotCache } from '#query-api/gex/snapshot-cache.ts';
import { quotedInstruments } from './chain-quotes-fixture.ts';
import { benchClient, benchKey, ms as f, quantile as q, timesMs as times, verdict } from './http-bench.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 200);
const DAYS = Number(process.env['BENCH_CHAIN_DAYS'] ?? 30);
const TARGETS = { write: 100, chain: 25, gamma: 15, asOfP50: 40, asOfP99: 100 } as const;

const mb = (b: number): string => `${(b / 1e6).toFixed(1)} MB`;

/**
 * Copies of the chain stored at `tick` to `count` earlier instants `stepMs` apart, server side, in chunks. The source is
 * filtered in a subquery: in the outer query the REPLACE alias `computed_at` would stand for the shifted value.
 */
async function fillTier(store: Store, table: string, tick: number, stepMs: number, count: number): Promise<void> {
  const chunk = 400;
  for (let from = 1; from <= count; from += chunk) {
    const to = Math.min(count, from + chunk - 1);
    await store.command(
      `INSERT INTO ${table} SELECT * REPLACE (computed_at - toIntervalMillisecond(n * ${stepMs}) AS computed_at, ticker_ts - toIntervalMillisecond(n * ${stepMs}) AS ticker_ts)
       FROM (SELECT * FROM option_chain_snapshots WHERE symbol = 'BTCUSDT' AND computed_at = fromUnixTimestamp64Milli(${tick}))
       ARRAY JOIN range(${from}, ${to + 1}) AS n`,
    );
    if (to === count || Math.floor(to / chunk) % 5 === 0) process.stderr.write(`  fill ${table}: ${to}/${count} ticks\n`);
  }
}

interface TierDisk {
  table: string;
  rows: number;
  bytes: number;
  ticks: number;
}

async function diskOf(store: Store): Promise<TierDisk[]> {
  const parts = await store.query<{ table: string; rows: number; bytes: number }>(
    `SELECT table, toFloat64(sum(rows)) AS rows, toFloat64(sum(bytes_on_disk)) AS bytes FROM system.parts
     WHERE active AND database = currentDatabase() AND table LIKE 'option_chain_snapshots%' GROUP BY table`,
  );
  const out: TierDisk[] = [];
  for (const tier of CHAIN_TIERS) {
    const p = parts.find((x) => x.table === tier.table);
    const t = await store.query<{ n: number }>(`SELECT toFloat64(uniqExact(computed_at)) AS n FROM ${tier.table}`);
    out.push({ table: tier.table, rows: p?.rows ?? 0, bytes: p?.bytes ?? 0, ticks: t[0]?.n ?? 0 });
  }
  return out;
}

export async function runOptionsBench(): Promise<void> {
  const dataPath = tempDataPath('gex-bench-options-');
  const store = await createStore({ dataPath });
  try {
    await migrate(store);
    const key = await benchKey(store);
    const tick = Math.floor(Date.now() / HOUR) * HOUR - HOUR; // an hour tick: stored in every tier
    const chain = syntheticChain({
      symbol: 'BTCUSDT',
      now: tick,
      spot: 97_000,
      venues: ['deribit', 'okx', 'bybit', 'binance'],
      perVenue: 750,
      seed: 7,
      withInventory: false,
      baseIv: 0.5,
    });
    const instruments = quotedInstruments(chain);
    const rows = chainRows(chain, instruments);
    await storeChainRows(store, 'BTCUSDT', tick, rows);
    const venueRows = rowsFromChain(chain, 'live');
    await storeSnapshotRows(store, 'BTCUSDT', tick, venueRows);
    await storeLevelsAndFlow(store, levelsOf('BTCUSDT', tick, venueRows), []);

    const f0 = performance.now();
    const recentTicks = Math.min(DAYS, 3) * 2880 - 1;
    await fillTier(store, 'option_chain_snapshots', tick, 30_000, recentTicks);
    await fillTier(store, 'option_chain_snapshots_5m', tick, 300_000, Math.min(DAYS, 35) * 288 - 1);
    await fillTier(store, 'option_chain_snapshots_1h', tick, HOUR, DAYS * 24 - 1);
    const fillS = (performance.now() - f0) / 1000;
    const disk = await diskOf(store);

    const snapshots = new SnapshotCache(store, { pollMs: 0 });
    await snapshots.refresh();
    const app = await buildApp({
      store,
      config: apiConfig({ discoveryCacheMs: 3_600_000, usageFlushMs: 60_000 }),
      logger: false,
      requestLogging: false,
      snapshots,
      clock: () => tick + 1_000,
    });
    const base = await app.listen({ host: '127.0.0.1', port: 0 });
    const chainPath = '/v2/options/chain?symbol=BTCUSDT';
    const c0 = performance.now();
    const sample = await (await fetch(new URL(chainPath, base), { headers: { 'x-api-key': key } })).text();
    const cold = performance.now() - c0;
    const http = await benchClient(base, key, sample);
    const get = (path: string): Promise<void> => http.get(path);
    try {
      await get(chainPath);
      const chainBytes = http.lastBytes;
      const chainP = q(await times(ROUNDS, () => get(chainPath)), 0.5);
      const gamma = q(await times(ROUNDS, () => get('/v2/options/greeks/gamma?symbol=BTCUSDT')), 0.5);
      const book = q(await times(ROUNDS, () => get('/v2/options/venue-book?symbol=BTCUSDT')), 0.5);
      const oi = q(await times(ROUNDS, () => get('/v2/options/oi/by-expiry?symbol=BTCUSDT')), 0.5);
      const bareP = q(await times(ROUNDS, () => http.bare()), 0.5);
      const select1 = q(
        await times(ROUNDS, async () => {
          await store.query('SELECT 1');
        }),
        0.5,
      );
      // as_of at random instants over the stored days (a seeded LCG): every lookup a different, cold chain
      let seed = 12345;
      const rand = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
      const asOfRounds = Math.max(20, Math.floor(ROUNDS / 2));
      const asOf = await times(
        asOfRounds,
        () => get(`${chainPath}&as_of=${new Date(tick - Math.floor(rand() * DAYS * DAY)).toISOString()}`),
        3,
      );
      const recent = await times(
        Math.max(10, Math.floor(asOfRounds / 4)),
        () => get(`${chainPath}&as_of=${new Date(tick - Math.floor(rand() * Math.min(3, DAYS) * DAY)).toISOString()}`),
        1,
      );
      // the cycle's write: rows from the processor's chain + the inserts, at later ticks (30 s, then hour ticks)
      let next = tick + 30_000;
      const write30 = await times(
        20,
        async () => {
          const t = (next += 30_000);
          await storeChainRows(store, 'BTCUSDT', t, chainRows({ ...chain, now: t }, instruments));
        },
        2,
      );
      let hourTick = tick + DAY;
      const writeHour = await times(
        5,
        async () => {
          const t = (hourTick += HOUR);
          await storeChainRows(store, 'BTCUSDT', t, chainRows({ ...chain, now: t }, instruments));
        },
        1,
      );
      const build = await times(
        20,
        async () => {
          chainRows({ ...chain, now: tick }, instruments);
        },
        2,
      );
      const perDay = (d: TierDisk, ticksPerDay: number): number => (d.ticks > 0 ? (d.bytes / d.ticks) * ticksPerDay : 0);
      const [d30, d5, d1h] = disk as [TierDisk, TierDisk, TierDisk];
      const day30 = perDay(d30, 2880);
      const day5 = perDay(d5, 288);
      const day1h = perDay(d1h, 24);
      process.stdout.write(
        [
          `options bench (embedded chDB; ${rows.length} contracts on 4 venues; ${DAYS} days of chains filled in ${fillS.toFixed(1)} s; ${cpus().length} cores, load avg ${loadavg()
            .map((x) => x.toFixed(1))
            .join(' ')}; HTTP keep-alive, to the last byte)`,
          `  chain snapshot write, 30 s tick (1 table)      : p50 ${f(q(write30, 0.5))} (rows built ${f(q(build, 0.5))})  ${verdict(q(write30, 0.5), TARGETS.write)}`,
          `  chain snapshot write, hour tick (3 tables)     : p50 ${f(q(writeHour, 0.5))}`,
          `  /v2/options/chain (latest, no filter)          : p50 ${f(chainP)} (${(chainBytes / 1e3).toFixed(0)} kB)  ${verdict(chainP, TARGETS.chain)}; ${(chainP / bareP).toFixed(1)}x bare Fastify, ${(chainP / select1).toFixed(1)}x SELECT 1`,
          `    first request (rows read + consolidated)     : ${f(cold)}`,
          `  /v2/options/greeks/gamma                       : p50 ${f(gamma)}  ${verdict(gamma, TARGETS.gamma)}`,
          `  /v2/options/venue-book                         : p50 ${f(book)}`,
          `  /v2/options/oi/by-expiry                       : p50 ${f(oi)}`,
          `  as_of chain over ${DAYS} days (cold, ${asOfRounds})          : p50 ${f(q(asOf, 0.5))} p90 ${f(q(asOf, 0.9))} p99 ` +
            `${f(q(asOf, 0.99))} max ${f(q(asOf, 1))}  p50 ${verdict(q(asOf, 0.5), TARGETS.asOfP50)}, p99 ${verdict(q(asOf, 0.99), TARGETS.asOfP99)}`,
          `    within the 30 s tier (last 3 days)           : p50 ${f(q(recent, 0.5))} p99 ${f(q(recent, 0.99))}`,
          `  baseline bare Fastify, same bytes              : p50 ${f(bareP)}`,
          `  baseline SELECT 1 (store)                      : p50 ${f(select1)}`,
          `  disk: 30 s tier ${mb(d30.bytes)} for ${d30.ticks} ticks = ${mb(day30)}/day (${(d30.bytes / Math.max(1, d30.rows)).toFixed(1)} B/row); 5 m tier ${mb(day5)}/day; 1 h tier ${mb(day1h)}/day`,
          `  retention budget per symbol of this size: 3 d × ${mb(day30)} + 35 d × ${mb(day5)} + 366 d × ${mb(day1h)} = ${mb(3 * day30 + 35 * day5 + 366 * day1h)}`,
          '',
        ].join('\n'),
      );
    } finally {
      await http.close();
      await app.close();
    }
  } finally {
    await store.close();
    rmSync(dataPath, { recursive: true, force: true });
  }
}
