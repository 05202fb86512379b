/**
 * GEX as_of benchmark: point-in-time level lookups over a year of 30 s snapshots in the embedded store.
 *
 * Fill: one year of 30 s ticks for BTCUSDT (1,051,200 synthetic venue rows: 40 strikes, four 201-point
 * profiles whose zero crossing moves with the tick, one expiry stat, packed into levels_pack in SQL),
 * generated inside ClickHouse with INSERT … SELECT FROM numbers(); plus a realistic subset at the end of the
 * year: one hour of real rows (4 venues × ~600 instruments from the engine's buildVenueRows) inserted through
 * the normal path.
 * gex_levels gets both models for every tick (synthetic ones carry a real ~20 KB payload).
 * Measure: levelsAsOf at 500 random instants over the year and 100 inside the real hour, p50/p99, for the
 * all-venue path (one gex_levels lookup) and the venue-filter path (the instant from the in-process index of
 * settled instants, snapshot-times.ts, then one read of the packed rows of that instant, decoded and
 * re-aggregated). Targets: p50 < 10 ms, p99 < 30 ms. Baselines in the same run: `SELECT 1` round
 * trip, and a count() over the same key range.
 *
 * Run alone: node --import tsx bench/gex-asof.ts   (BENCH_ASOF_DAYS=… shortens the year for a quick run)
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { migrate } from '#clickhouse/migrate.ts';
import { openTempStore } from '#clickhouse/testing/temp-store.ts';
import type { Store } from '#clickhouse/store.ts';
import { ALL_INCLUDES } from '#processors/analytics/levels.ts';
import { prng, syntheticChain } from '#processors/analytics/testing/synthetic-chain.ts';
import { levelsAsOf } from '#query-api/gex/as-of.ts';
import { snapshotTimesOf } from '#query-api/gex/snapshot-times.ts';
import { rowsFromChain } from '#processors/snapshots/compute-step.ts';
import { gammaFlowPoints, levelsOf } from '#processors/snapshots/levels-step.ts';
import { storeLevelsAndFlow, storeSnapshotRows } from '#processors/snapshots/write-step.ts';
import { msParam, msInstant } from '#clickhouse/epoch-ms.ts';

const INTERVAL = 30_000;
const DAY = 86_400_000;
const END = Math.floor(Date.UTC(2026, 9, 12, 13, 0, 0) / INTERVAL) * INTERVAL;
const REAL_TICKS = 120; // one hour of real rows at the end

function pct(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
}

async function timeAll(
  instants: readonly number[],
  fn: (t: number) => Promise<unknown>,
): Promise<{ p50: number; p99: number; mean: number }> {
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
  {
    expiry: END + 7 * DAY,
    atm_iv: 0.5,
    atm_weight: 2000,
    strikes: [95_000, 100_000, 105_000],
    call_oi: [100, 300, 500],
    put_oi: [600, 300, 100],
  },
]);

/** SQL building a levels_pack (processors/snapshots/level-pack.ts layout) from Float64 expressions and arrays. */
function packSql(parts: readonly string[]): string {
  // hex(Float64) is the value's little-endian bytes; a FixedString(8) route would lose the zero bytes of 0.
  return `base64Encode(unhex(arrayStringConcat(arrayMap(x -> hex(x), arrayConcat(${parts.map((x) => `CAST(${x} AS Array(Float64))`).join(', ')})))))`;
}

/** `[n], arr` of the pack: an array prefixed by its length. */
const withLen = (arr: string): string[] => [`[length(${arr})]`, arr];

/** Literal Float64 elements (an array literal mixing UInt64 and Float64 has no common type). */
const floats = (xs: readonly number[]): string => xs.map((x) => `toFloat64(${x})`).join(', ');

const SCOPE = [
  'a_strikes',
  'a_call_oi',
  'a_put_oi',
  'a_cstd',
  'a_pstd',
  'a_cflow',
  'a_pflow',
  'a_cabs',
  'a_pabs',
  'a_prof_std',
  'a_slope_std',
  'a_prof_flow',
  'a_slope_flow',
];

/** One year (or BENCH_ASOF_DAYS) of synthetic rows ending before the real hour, generated in SQL. */
async function fillSynthetic(store: Store, ticks: number, start: number): Promise<void> {
  const pack = packSql([
    `[1, s, p, ${floats([1, 80, 0, 0, 0, 40, 100, 900, 120, 2000])}]`,
    ...SCOPE.flatMap(withLen),
    `[${floats([0, 1, END + 7 * DAY, 0.5, 2000, 3, 95000, 100000, 105000, 3, 100, 300, 500, 3, 600, 300, 100])}]`,
  ]);
  await store.command(
    `INSERT INTO gex_snapshots
     (symbol, venue, computed_at, spot, perp_price, grid_min, grid_step, grid_points, has_inventory, instruments_used,
      skipped_no_iv, dropped_expired, t_floored, levels_pack, expiries, cell_expiry, cell_strike, cell_gex_std, cell_gex_flow,
      inv_contracts, inv_net, inv_abs, inv_unclipped_net, oi_total, source)
     SELECT 'BTCUSDT', 'deribit', ${msInstant(`toInt64({start:Int64} + number * ${INTERVAL})`)},
       100000 + 5000 * sin(number / 5000) AS s, 100020 + 5000 * sin(number / 5000) AS p, -0.25, 0.0025, 201, true, 80, 0, 0, 0,
       ${pack}, {expiries:String},
       arrayMap(i -> ${msInstant(`toInt64(${END + 7 * DAY})`)}, range(40)),
       arrayMap(i -> 80000 + i * 1000, range(40)) AS a_strikes,
       arrayMap(i -> 1e6 * (1 + (i + number) % 13), range(40)) AS a_cstd,
       arrayMap(i -> 5e5 * ((i + number) % 7 - 3), range(40)) AS a_cflow,
       40, 100, 900, 120, 2000, 'store'
     FROM (
       SELECT number,
         arrayMap(i -> toFloat64(10 + (i * 7 + number) % 50), range(40)) AS a_call_oi,
         arrayMap(i -> toFloat64(10 + (i * 11 + number) % 60), range(40)) AS a_put_oi,
         arrayMap(i -> -1e6 * (1 + (i * 3 + number) % 11), range(40)) AS a_pstd,
         arrayMap(i -> -5e5 * ((i * 5 + number) % 9 - 4), range(40)) AS a_pflow,
         arrayMap(i -> 5e5 * (1 + (i + number) % 7), range(40)) AS a_cabs,
         arrayMap(i -> 5e5 * (1 + (i * 5 + number) % 9), range(40)) AS a_pabs,
         arrayMap(j -> 1e5 * (j - 100 + (number % 9) - 4.5), range(201)) AS a_prof_std,
         arrayMap(j -> 4e7, range(201)) AS a_slope_std,
         arrayMap(j -> -1e5 * (j - 100 + (number % 7) - 3.5), range(201)) AS a_prof_flow,
         arrayMap(j -> -4e7, range(201)) AS a_slope_flow
       FROM numbers({n:UInt64}))
     SETTINGS max_insert_threads = 2, max_block_size = 16384`,
    { start, n: ticks, expiries: EXPIRY_JSON },
  );
}

/** gex_levels for the synthetic ticks: both models, a real ~20 KB levels payload (from the real subset). */
async function fillSyntheticLevels(
  store: Store,
  ticks: number,
  start: number,
  payloads: Readonly<Record<'flow' | 'std', string>>,
): Promise<void> {
  await store.command(
    `INSERT INTO gex_levels (symbol, computed_at, model, positioning, spot, perp_price, hvl, call_resistance, call_wall_2,
       call_wall_3, put_support, put_wall_2, put_wall_3, net_gex, odte_hvl, odte_call_resistance, odte_put_support,
       max_pain, coverage, venues, payload)
     SELECT 'BTCUSDT', ${msInstant(`toInt64({start:Int64} + intDiv(number, 2) * ${INTERVAL})`)},
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
    console.log(
      `  gex_levels: ${lv?.rows} rows, ${(Number(lv?.bytes) / 2 ** 20).toFixed(0)} MiB; payload ${(payloads.flow.length / 1024).toFixed(0)} KB per model`,
    );
    console.log(`  fill: synthetic INSERT…SELECT ${(synthMs / 1000).toFixed(1)} s, real rows ${(realMs / 1000).toFixed(1)} s`);

    const rand = prng(7);
    const yearInstants = Array.from({ length: 500 }, () => synthStart + rand() * (END + INTERVAL - synthStart));
    const realInstants = Array.from({ length: 100 }, () => realStart + rand() * REAL_TICKS * INTERVAL);
    // warm-up (marks, caches, JIT)
    for (const t of yearInstants.slice(0, 20))
      await levelsAsOf(store, { symbol: 'BTCUSDT', asOfMs: t, model: 'flow', include: ALL_INCLUDES });
    // the in-process index of settled instants (loaded on the first venue-filtered read)
    s = performance.now();
    await levelsAsOf(store, { symbol: 'BTCUSDT', asOfMs: END - DAY, model: 'flow', venues: ['deribit'] });
    await snapshotTimesOf(store).ready('BTCUSDT');
    console.log(`  snapshot-times index load: ${(performance.now() - s).toFixed(0)} ms (settled instants only: older than 24 h)`);
    for (const t of yearInstants.slice(0, 20))
      await levelsAsOf(store, { symbol: 'BTCUSDT', asOfMs: t, model: 'flow', venues: ['deribit'], include: ALL_INCLUDES });

    const one = await timeAll(yearInstants, () => store.query('SELECT 1 AS x'));
    const count = await timeAll(yearInstants, (t) =>
      store.query(`SELECT count() AS n FROM gex_snapshots WHERE symbol = 'BTCUSDT' AND computed_at <= ${msParam('t')}`, {
        t: Math.floor(t),
      }),
    );
    const year = await timeAll(yearInstants, (t) =>
      levelsAsOf(store, { symbol: 'BTCUSDT', asOfMs: t, model: 'flow', include: ALL_INCLUDES }),
    );
    const real = await timeAll(realInstants, (t) =>
      levelsAsOf(store, { symbol: 'BTCUSDT', asOfMs: t, model: 'flow', include: ALL_INCLUDES }),
    );
    const subsetYear = await timeAll(yearInstants, (t) =>
      levelsAsOf(store, { symbol: 'BTCUSDT', asOfMs: t, model: 'flow', venues: ['deribit'], include: ALL_INCLUDES }),
    );
    const subset = await timeAll(realInstants, (t) =>
      levelsAsOf(store, { symbol: 'BTCUSDT', asOfMs: t, model: 'std', venues: ['deribit', 'okx'], include: ['max_pain'] }),
    );
    const f = (x: number): string => x.toFixed(2).padStart(7);
    const verdict = (r: { p50: number; p99: number }): string => (r.p50 < 10 && r.p99 < 30 ? 'OK' : 'MISSED');
    console.log(`                                                   p50 ms   p99 ms  mean ms   p50 / SELECT 1`);
    console.log(`  baseline SELECT 1 round trip (500)              ${f(one.p50)}  ${f(one.p99)}  ${f(one.mean)}     1.0x`);
    console.log(
      `  baseline count() over [start, as_of] (500)      ${f(count.p50)}  ${f(count.p99)}  ${f(count.mean)}  ${(count.p50 / one.p50).toFixed(1).padStart(6)}x`,
    );
    console.log(
      `  levelsAsOf flow, all blocks, year (500)         ${f(year.p50)}  ${f(year.p99)}  ${f(year.mean)}  ${(year.p50 / one.p50).toFixed(1).padStart(6)}x  target p50<10 p99<30: ${verdict(year)}`,
    );
    console.log(
      `  levelsAsOf flow, all blocks, real hour (100)    ${f(real.p50)}  ${f(real.p99)}  ${f(real.mean)}  ${(real.p50 / one.p50).toFixed(1).padStart(6)}x  target: ${verdict(real)}`,
    );
    console.log(
      `  levelsAsOf flow, venue filter, year (500)       ${f(subsetYear.p50)}  ${f(subsetYear.p99)}  ${f(subsetYear.mean)}  ${(subsetYear.p50 / one.p50).toFixed(1).padStart(6)}x  target: ${verdict(subsetYear)}`,
    );
    console.log(
      `  levelsAsOf std, 2 of 4 venues, real hour (100)  ${f(subset.p50)}  ${f(subset.p99)}  ${f(subset.mean)}  ${(subset.p50 / one.p50).toFixed(1).padStart(6)}x  target: ${verdict(subset)}`,
    );
  } finally {
    await dispose();
  }
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) await runGexAsOfBench();
