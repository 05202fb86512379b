/**
 * GEX as_of benchmark: point-in-time level lookups over a year of 30 s snapshots in the embedded store.
 *
 * Fill: one year of 30 s ticks for BTCUSDT (1,051,200 synthetic venue rows: 40 strikes, four 201-point
 * profiles whose zero crossing moves with the tick, one expiry stat), generated inside ClickHouse with
 * INSERT … SELECT FROM numbers(); plus a realistic subset at the end of the year: one hour of real rows
 * (4 venues × ~600 instruments from the engine's buildVenueRows) inserted through the normal path.
 * gex_levels gets both models for every tick (synthetic ones carry a real ~20 KB payload).
 * Measure: levelsAsOf at 500 random instants over the year and 100 inside the real hour, p50/p99, for the
 * all-venue path (one gex_levels lookup) and the venue-filter path (instant lookup + the rows of that instant,
 * parsed and re-aggregated). Targets: p50 < 10 ms, p99 < 30 ms. Baselines in the same run: `SELECT 1` round
 * trip, and a count() over the same key range.
 *
 * Run alone: node --import tsx bench/gex-asof.ts   (BENCH_ASOF_DAYS=… shortens the year for a quick run)
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { migrate } from '../clickhouse/migrate.ts';
import { openTempStore } from '../clickhouse/testing/temp-store.ts';
import type { Store } from '../clickhouse/store.ts';
import { ALL_INCLUDES } from '../processors/analytics/levels.ts';
import { prng, syntheticChain } from '../processors/analytics/synthetic-chain.ts';
import { levelsAsOf } from '../processors/snapshots/as-of.ts';
import { rowsFromChain } from '../processors/snapshots/compute-step.ts';
import { gammaFlowPoints, levelsOf } from '../processors/snapshots/levels-step.ts';
import { storeLevelsAndFlow, storeSnapshotRows } from '../processors/snapshots/write-step.ts';

const INTERVAL = 30_000;
const DAY = 86_400_000;
const END = Math.floor(Date.UTC(2026, 9, 12, 13, 0, 0) / INTERVAL) * INTERVAL;
const REAL_TICKS = 120; // one hour of real rows at the end

function pct(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
}

async function timeAll(instants: readonly number[], fn: (t: number) => Promise<unknown>): Promise<{ p50: number; p99: number; mean: number }> {
  const out: number[] = [];
  for (const t of instants) {
    const s = performance.now();
    await fn(t);
    out.push(performance.now() - s);
  }
  out.sort((a, b) => a - b);
  return { p50: pct(out, 0.5), p99: pct(out, 0.99), mean: out.reduce((a, b) => a + b, 0) / out.length };
}

const EXPIRY_JSON = JSON.stringify([
  { expiry: END + 7 * DAY, atm_iv: 0.5, atm_weight: 2000, strikes: [95_000, 100_000, 105_000], call_oi: [100, 300, 500], put_oi: [600, 300, 100] },
]);

/** One year (or BENCH_ASOF_DAYS) of synthetic rows ending before the real hour, generated in SQL. */
async function fillSynthetic(store: Store, ticks: number, start: number): Promise<void> {
  await store.command(
    `INSERT INTO gex_snapshots
     (symbol, venue, computed_at, spot, perp_price, grid_min, grid_step, grid_points, has_inventory, instruments_used,
      skipped_no_iv, dropped_expired, t_floored, strikes, call_oi, put_oi, call_gex_std, put_gex_std, call_gex_flow,
      put_gex_flow, call_gex_flow_abs, put_gex_flow_abs, profile_std, profile_std_slope, profile_flow, profile_flow_slope,
      near, expiries, cell_expiry, cell_strike, cell_gex_std, cell_gex_flow, inv_contracts, inv_net, inv_abs,
      inv_unclipped_net, oi_total, source)
     SELECT 'BTCUSDT', 'deribit', fromUnixTimestamp64Milli(toInt64({start:Int64} + number * ${INTERVAL}), 'UTC'),
       100000 + 5000 * sin(number / 5000), 100020 + 5000 * sin(number / 5000), -0.25, 0.0025, 201, true, 80, 0, 0, 0,
       arrayMap(i -> 80000 + i * 1000, range(40)),
       arrayMap(i -> toFloat64(10 + (i * 7 + number) % 50), range(40)),
       arrayMap(i -> toFloat64(10 + (i * 11 + number) % 60), range(40)),
       arrayMap(i -> 1e6 * (1 + (i + number) % 13), range(40)),
       arrayMap(i -> -1e6 * (1 + (i * 3 + number) % 11), range(40)),
       arrayMap(i -> 5e5 * ((i + number) % 7 - 3), range(40)),
       arrayMap(i -> -5e5 * ((i * 5 + number) % 9 - 4), range(40)),
       arrayMap(i -> 5e5 * (1 + (i + number) % 7), range(40)),
       arrayMap(i -> 5e5 * (1 + (i * 5 + number) % 9), range(40)),
       arrayMap(j -> 1e5 * (j - 100 + (number % 9) - 4.5), range(201)),
       arrayMap(j -> 4e7, range(201)),
       arrayMap(j -> -1e5 * (j - 100 + (number % 7) - 3.5), range(201)),
       arrayMap(j -> -4e7, range(201)),
       '[]', {expiries:String},
       arrayMap(i -> fromUnixTimestamp64Milli(toInt64(${END + 7 * DAY}), 'UTC'), range(40)),
       arrayMap(i -> 80000 + i * 1000, range(40)),
       arrayMap(i -> 1e6 * (1 + (i + number) % 13), range(40)),
       arrayMap(i -> 5e5 * ((i + number) % 7 - 3), range(40)),
       40, 100, 900, 120, 2000, 'store'
     FROM numbers({n:UInt64})
     SETTINGS max_insert_threads = 2, max_block_size = 16384`,
    { start, n: ticks, expiries: EXPIRY_JSON },
  );
}

/** gex_levels for the synthetic ticks: both models, a real ~20 KB levels payload (from the real subset). */
async function fillSyntheticLevels(store: Store, ticks: number, start: number, payloads: Readonly<Record<'flow' | 'std', string>>): Promise<void> {
  await store.command(
    `INSERT INTO gex_levels (symbol, computed_at, model, positioning, spot, perp_price, hvl, call_resistance, call_wall_2,
       call_wall_3, put_support, put_wall_2, put_wall_3, net_gex, odte_hvl, odte_call_resistance, odte_put_support,
       max_pain, coverage, venues, payload)
     SELECT 'BTCUSDT', fromUnixTimestamp64Milli(toInt64({start:Int64} + intDiv(number, 2) * ${INTERVAL}), 'UTC'),
       if(number % 2 = 0, 'flow', 'std') AS m, m, 100000 + 5000 * sin(intDiv(number, 2) / 5000), NULL,
       99000 + number % 2000, 105000, 110000, 120000, 95000, 90000, 85000, 1e8 * sin(number / 977), NULL, NULL, NULL,
       100000, 0.3, ['deribit'], if(m = 'flow', {flow:String}, {std:String})
     FROM numbers({n:UInt64})
     SETTINGS max_insert_threads = 2`,
    { start, n: ticks * 2, flow: payloads.flow, std: payloads.std },
  );
}

/** The realistic subset: REAL_TICKS ticks of real venue rows (4 venues) and levels through the normal write path. */
async function fillReal(store: Store, first: number): Promise<Record<'flow' | 'std', string>> {
  const payloads = { flow: '', std: '' };
  for (let k = 0; k < REAL_TICKS; k++) {
    const now = first + k * INTERVAL;
    const chain = syntheticChain({
      symbol: 'BTCUSDT',
      now,
      spot: 97_000 * (1 + 0.002 * Math.sin(k / 10)),
      venues: ['deribit', 'okx', 'bybit', 'binance'],
      perVenue: 600,
      seed: 1000 + k,
      withInventory: true,
      baseIv: 0.5,
    });
    const rows = rowsFromChain(chain, 'live');
    await storeSnapshotRows(store, 'BTCUSDT', now, rows);
    const levels = levelsOf('BTCUSDT', now, rows);
    const prev = k === 0 ? { flow: null, std: null } : null;
    await storeLevelsAndFlow(store, levels, prev === null ? [] : gammaFlowPoints(levels, prev));
    payloads.flow = JSON.stringify(levels.levels.flow);
    payloads.std = JSON.stringify(levels.levels.std);
  }
  return payloads;
}

export async function runGexAsOfBench(): Promise<void> {
  const days = Number(process.env.BENCH_ASOF_DAYS ?? 365);
  const synthTicks = Math.round((days * DAY) / INTERVAL);
  const realStart = END - (REAL_TICKS - 1) * INTERVAL;
  const synthStart = realStart - synthTicks * INTERVAL;
  const { store, dispose } = await openTempStore();
  try {
    await migrate(store);
    let s = performance.now();
    const payloads = await fillReal(store, realStart);
    const realMs = performance.now() - s;
    s = performance.now();
    await fillSynthetic(store, synthTicks, synthStart);
    await fillSyntheticLevels(store, synthTicks, synthStart, payloads);
    const synthMs = performance.now() - s;
    const [info] = await store.query<{ rows: string; parts: string; bytes: string; raw: string }>(
      "SELECT toString(sum(rows)) AS rows, toString(count()) AS parts, toString(sum(bytes_on_disk)) AS bytes, toString(sum(data_uncompressed_bytes)) AS raw FROM system.parts WHERE table = 'gex_snapshots' AND active",
    );
    console.log(
      `gex as_of bench: ${info?.rows} rows in gex_snapshots (${synthTicks} synthetic 30 s ticks over ${days} d + ${REAL_TICKS} real ticks x 4 venues), ` +
        `${info?.parts} parts, ${(Number(info?.bytes) / 2 ** 20).toFixed(0)} MiB on disk (${(Number(info?.raw) / 2 ** 20).toFixed(0)} MiB raw)`,
    );
    const [lv] = await store.query<{ rows: string; bytes: string }>(
      "SELECT toString(sum(rows)) AS rows, toString(sum(bytes_on_disk)) AS bytes FROM system.parts WHERE table = 'gex_levels' AND active",
    );
    console.log(`  gex_levels: ${lv?.rows} rows, ${(Number(lv?.bytes) / 2 ** 20).toFixed(0)} MiB; payload ${(payloads.flow.length / 1024).toFixed(0)} KB per model`);
    console.log(`  fill: synthetic INSERT…SELECT ${(synthMs / 1000).toFixed(1)} s, real rows ${(realMs / 1000).toFixed(1)} s`);

    const rand = prng(7);
    const yearInstants = Array.from({ length: 200 }, () => synthStart + rand() * (END + INTERVAL - synthStart));
    const { levelRowsAtOrBefore, snapshotTimeAtOrBefore, rowsAt } = await import('../processors/snapshots/snapshot-reads.ts');
    const { levelRowColumns } = await import('../processors/snapshots/snapshot-record.ts');
    const cols = levelRowColumns({ std: false, flow: true, expiries: true });
    const f = (x: number): string => x.toFixed(2).padStart(7);
    const show = (name: string, r: { p50: number; p99: number }) => console.log(name.padEnd(50), f(r.p50), f(r.p99));
    const q = (tbl: string) => (t: number) => store.query(`SELECT ${cols} FROM ${tbl} WHERE symbol = 'BTCUSDT' AND venue IN ('deribit') AND computed_at = fromUnixTimestamp64Milli(${Math.floor((t - synthStart) / INTERVAL) * INTERVAL + synthStart}, 'UTC')`);
    for (const [name, settings] of [['small_blocks', 'min_compress_block_size = 4096, max_compress_block_size = 16384'], ['tiny_gran', 'index_granularity = 4, min_compress_block_size = 4096, max_compress_block_size = 16384']] as const) {
      await store.command(`CREATE TABLE ${name} AS gex_snapshots ENGINE = ReplacingMergeTree PARTITION BY toYYYYMM(computed_at) ORDER BY (symbol, computed_at, venue) SETTINGS ${settings}`);
      await store.command(`INSERT INTO ${name} SELECT * FROM gex_snapshots SETTINGS max_insert_threads = 2`);
      await store.command(`OPTIMIZE TABLE ${name} FINAL`);
    }
    for (let rep = 0; rep < 2; rep++) {
      show('SELECT 1', await timeAll(yearInstants, () => store.query('SELECT 1 AS x')));
      show('cols const t, gex_snapshots', await timeAll(yearInstants, q('gex_snapshots')));
      show('cols const t, small compress blocks', await timeAll(yearInstants, q('small_blocks')));
      show('cols const t, granularity 4 + small blocks', await timeAll(yearInstants, q('tiny_gran')));
    }
  } finally {
    await dispose();
  }
}

const entry = process.argv[1];
await runGexAsOfBench();
