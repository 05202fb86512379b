/**
 * `npm run bench -- level-study`: GET /v2/gex/level-study (query-api/gex/level-study.ts) over a year of stored
 * 30 s snapshots. Target (issue #32): a year at a 30-minute step answers cold in < 500 ms, warm from cache.
 *
 * Fill (generated inside the store, INSERT … SELECT FROM numbers(), in 30-day batches with progress on stderr):
 * BENCH_STUDY_DAYS (default 365) of 30 s BTCUSDT gex_levels rows (copied into gex_level_series by its view, which
 * the route reads), both models (1,051,200 instants per model): a
 * random-walk spot (50 % annualized), hvl within ~2 % of spot (NULL at 1 instant in 400), call resistance / put
 * support on 1,000-strikes 1-3 % above / below spot, net GEX switching sign; payload '{}' (the study does not read
 * it). For the venue filter, gex_snapshots rows of 4 venues at every 30 s tick over the last BENCH_STUDY_VENUE_DAYS
 * (default 90): real venue rows (syntheticChain -> rowsFromChain, BENCH_STUDY_PER_VENUE instruments a venue) built
 * on a grid of spots 4 % apart and written through the processor's write path once, then copied in SQL to every
 * tick with the template nearest that tick's spot.
 * Measure, through the app (testApp + inject, SnapshotCache pollMs 0, an enterprise key, response validation off
 * as in production):
 *   - cold: the year at step 30m, horizon 4h, flow: the first request after the app starts, then distinct windows
 *     (`to` moved back one step each: every request misses the route cache), p50 / max;
 *   - warm: the first window repeated (route cache hit), p50;
 *   - 90 days with exchanges=deribit, cold (distinct windows), and the same 90 days without the filter;
 * against, in the same run: the bare SELECT of the same rows (the route's SQL through store.queryColumns), the
 * engine's scan of them without sending rows (aggregates over the same WHERE), the read into snapshot objects
 * (studyColumns: every spot plus the levels of the samplable snapshots) and the pure computation (levelStudyOf over
 * the in-memory columns).
 *
 * Run alone: node --import tsx bench/level-study.ts
 */
import { cpus, loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { msInstant, msInt64, msParam } from '#clickhouse/epoch-ms.ts';
import type { Store } from '#clickhouse/store.ts';
import { levelStudyOf, sampledTimes, type LevelStudy, type StudyOptions } from '#processors/analytics/level-study.ts';
import { rowsFromChain } from '#processors/snapshots/compute-step.ts';
import { storeSnapshotRows } from '#processors/snapshots/write-step.ts';
import { syntheticChain } from '#processors/analytics/testing/synthetic-chain.ts';
import { PATH_PIECE_MS, studyColumns, withVenueLevels } from '#query-api/gex/level-study-reads.ts';
import { SnapshotCache } from '#query-api/gex/snapshot-cache.ts';
import { migratedStore, testApp } from '#query-api/testing/harness.ts';
import type { Venue } from '#schemas/events.ts';
import { benchKey, quantile, timesMs } from './http-bench.ts';
import { tableInfo } from './table-info.ts';

const INTERVAL = 30_000;
const MIN = 60_000;
const DAY = 86_400_000;
const STEP = 30 * MIN;
const HORIZON = 4 * 60 * MIN;
const END = Math.floor(Date.UTC(2026, 9, 12, 13, 0, 0) / STEP) * STEP;
const DAYS = Number(process.env['BENCH_STUDY_DAYS'] ?? 365);
const VENUE_DAYS = Math.min(DAYS, Number(process.env['BENCH_STUDY_VENUE_DAYS'] ?? 90));
const PER_VENUE = Number(process.env['BENCH_STUDY_PER_VENUE'] ?? 300);
const VENUES: readonly Venue[] = ['deribit', 'okx', 'bybit', 'binance'];
/** Distinct cold windows after the first request. */
const COLD = 5;
const WARM = 20;
const BASELINE = 5;
const TARGET_MS = 500;
/** Native bytes of a row of the study's read: t (Int64), spot, 3 × Nullable(Float64), net_gex. */
const ROW_BYTES = 8 + 8 + 3 * 9 + 8;
/** Log-spot distance between venue-row templates. */
const TEMPLATE_LOG_STEP = 0.04;
/** Per-tick bound of the uniform log return: sd = bound / √3 ≈ 50 % annualized at 30 s ticks. */
const STEP_RETURN = 0.5 * Math.sqrt(3) * Math.sqrt(INTERVAL / (365 * DAY));

const ticks = Math.round((DAYS * DAY) / INTERVAL);
const START = END - (ticks - 1) * INTERVAL;
const iso = (ms: number): string => new Date(ms).toISOString();
const fmt = (v: number): string => v.toFixed(1).padStart(8);
const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
const progress = (what: string, done: number, total: number): void => {
  process.stderr.write(`  ${what}: ${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')}\n`);
};

/**
 * gex_levels for ticks [first, first + n) of the year, both models. The walk continues from `logSpot` (the log
 * spot of the tick before `first`); returns the log spot of the batch's last tick.
 */
async function fillLevelsBatch(store: Store, first: number, n: number, logSpot: number): Promise<number> {
  await store.command(
    `INSERT INTO gex_levels (symbol, computed_at, model, positioning, spot, perp_price, hvl, call_resistance, call_wall_2,
       call_wall_3, put_support, put_wall_2, put_wall_3, net_gex, odte_hvl, odte_call_resistance, odte_put_support,
       max_pain, coverage, venues, payload)
     SELECT 'BTCUSDT', ${msInstant(`toInt64({start:Int64} + i * ${INTERVAL})`)}, m, m, s, s * 1.0002,
       if(cityHash64(i, 5) % 400 = 0, NULL, s * (1 + 0.015 * sin(i / 2900 + if(m = 'std', 0.7, 0)) + 0.004 * sin(i / 170))),
       ceil(s * (1.01 + 0.01 * (1 + sin(i / 4100))) / 1000) * 1000 + if(m = 'std', 1000, 0) AS cr, cr + 5000, cr + 10000,
       floor(s * (0.99 - 0.01 * (1 + sin(i / 3700 + 1))) / 1000) * 1000 - if(m = 'std', 1000, 0) AS ps, ps - 5000, ps - 10000,
       2e8 * sin(i / 1900 + if(m = 'std', 1.3, 0)) + 6e7 * ((cityHash64(i, 3) % 1000) / 500 - 1),
       NULL, NULL, NULL, round(s / 5000) * 5000, 0.3, ['deribit', 'okx', 'bybit', 'binance'], '{}'
     FROM (
       SELECT i, exp({log_spot:Float64} + sum(r) OVER (ORDER BY i ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)) AS s
       FROM (SELECT number + {first:UInt64} AS i, {r:Float64} * ((cityHash64(i, 1) % 2000001) / 1000000 - 1) AS r FROM numbers({n:UInt64}))
     )
     ARRAY JOIN ['flow', 'std'] AS m
     SETTINGS max_insert_threads = 2`,
    { start: START, first, n, log_spot: logSpot, r: STEP_RETURN },
  );
  const [last] = await store.query<{ s: number }>(
    `SELECT spot AS s FROM gex_levels WHERE symbol = 'BTCUSDT' AND model = 'flow' AND computed_at = ${msParam('t')}`,
    { t: START + (first + n - 1) * INTERVAL },
  );
  if (last === undefined) throw new Error('gex_levels batch not stored');
  return Math.log(last.s);
}

async function fillLevels(store: Store): Promise<void> {
  const batch = Math.round((30 * DAY) / INTERVAL);
  let logSpot = Math.log(100_000);
  for (let first = 0; first < ticks; first += batch) {
    const n = Math.min(batch, ticks - first);
    logSpot = await fillLevelsBatch(store, first, n, logSpot);
    progress('gex_levels instants (x2 models)', first + n, ticks);
  }
  await store.command('OPTIMIZE TABLE gex_levels FINAL');
  await store.command('OPTIMIZE TABLE gex_level_series FINAL');
}

/**
 * gex_snapshots rows of the four venues at every tick of [from, END]: templates (real venue rows at spots
 * TEMPLATE_LOG_STEP apart, written through storeSnapshotRows at instants before the year) copied to each tick
 * with the template whose spot is nearest that tick's (flow) spot. Returns the template count.
 */
async function fillVenueRows(store: Store, from: number): Promise<number> {
  const [range] = await store.query<{ lo: number; hi: number }>(
    `SELECT min(spot) AS lo, max(spot) AS hi FROM gex_levels
     WHERE symbol = 'BTCUSDT' AND model = 'flow' AND computed_at >= ${msParam('from')} AND computed_at <= ${msParam('to')}`,
    { from, to: END },
  );
  if (range === undefined) throw new Error('no gex_levels rows');
  const count = Math.ceil(Math.log(range.hi / range.lo) / TEMPLATE_LOG_STEP) + 1;
  const tpl = START - 30 * DAY;
  const mid = Math.floor((from + END) / 2);
  for (let k = 0; k < count; k++) {
    const at = tpl + k * INTERVAL;
    const chain = syntheticChain({
      symbol: 'BTCUSDT',
      now: mid,
      spot: range.lo * Math.exp(k * TEMPLATE_LOG_STEP),
      venues: VENUES,
      perVenue: PER_VENUE,
      seed: 500 + k,
      withInventory: true,
      baseIv: 0.5,
    });
    const rows = rowsFromChain(chain, 'live').map((r) => ({ ...r, computed_at: at }));
    await storeSnapshotRows(store, 'BTCUSDT', at, rows);
  }
  const cols = (
    await store.query<{ name: string }>(
      "SELECT name FROM system.columns WHERE database = currentDatabase() AND table = 'gex_snapshots' ORDER BY position",
    )
  ).map((c) => c.name);
  const select = cols.map((c) => (c === 'computed_at' ? 'g.at' : `tp.${c}`)).join(', ');
  const batch = 10 * DAY;
  for (let t = from; t <= END; t += batch) {
    await store.command(
      `INSERT INTO gex_snapshots (${cols.join(', ')})
       SELECT ${select}
       FROM (
         SELECT computed_at AS at, greatest(0, least({count:Int64} - 1, toInt64(round(log(spot / {lo:Float64}) / ${TEMPLATE_LOG_STEP})))) AS k
         FROM gex_levels
         WHERE symbol = 'BTCUSDT' AND model = 'flow' AND computed_at >= ${msParam('from')} AND computed_at < ${msParam('to')}
       ) AS g
       INNER JOIN (
         SELECT *, toInt64(intDiv(${msInt64('computed_at')} - {tpl:Int64}, ${INTERVAL})) AS k
         FROM gex_snapshots
         WHERE symbol = 'BTCUSDT' AND computed_at >= ${msParam('tpl')} AND computed_at < ${msParam('tpl_end')}
       ) AS tp ON g.k = tp.k
       SETTINGS max_insert_threads = 2`,
      { count, lo: range.lo, from: t, to: Math.min(t + batch, END + 1), tpl, tpl_end: tpl + count * INTERVAL },
    );
    progress('gex_snapshots days (x4 venues)', Math.min(Math.round((t + batch - from) / DAY), VENUE_DAYS), VENUE_DAYS);
  }
  return count;
}

/** Waits (up to 15 min) until no background merge runs: the measures then see a settled store. Returns seconds waited. */
async function settle(store: Store): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    const [m] = await store.query<{ n: string }>('SELECT toString(count()) AS n FROM system.merges');
    if (Number(m?.n ?? 0) === 0 || performance.now() - t0 > 15 * 60_000) return (performance.now() - t0) / 1000;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

const STUDY_SQL = `SELECT ${msInt64('computed_at')} AS t, spot, hvl, call_resistance, put_support, net_gex FROM gex_level_series
WHERE symbol = {symbol:String} AND model = {model:String} AND computed_at >= ${msParam('from')} AND computed_at < ${msParam('until')}
ORDER BY symbol, model, computed_at`;

const SCAN_SQL = `SELECT count() AS n, max(${msInt64('computed_at')}) AS t, sum(spot) AS spot, sum(hvl) AS hvl,
  sum(call_resistance) AS cr, sum(put_support) AS ps, sum(net_gex) AS net FROM gex_level_series
WHERE symbol = {symbol:String} AND model = {model:String} AND computed_at >= ${msParam('from')} AND computed_at <= ${msParam('to')}`;

interface Stat {
  readonly p50: number;
  readonly max: number;
}
const stat = (xs: readonly number[]): Stat => ({ p50: quantile(xs, 0.5), max: Math.max(...xs) });
const rssMb = (): number => process.memoryUsage().rss / 2 ** 20;

export async function runLevelStudyBench(): Promise<void> {
  console.log(
    `level-study bench: ${cpus().length} cores, load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  const { store, dispose } = await migratedStore();
  try {
    let t0 = performance.now();
    await fillLevels(store);
    const levelsS = (performance.now() - t0) / 1000;
    const venueFrom = END - VENUE_DAYS * DAY;
    t0 = performance.now();
    const templates = VENUE_DAYS > 0 ? await fillVenueRows(store, venueFrom) : 0;
    const venueS = (performance.now() - t0) / 1000;
    const settleS = await settle(store);
    const lv = await tableInfo(store, 'gex_levels');
    const vs = await tableInfo(store, 'gex_snapshots');
    const series = await tableInfo(store, 'gex_level_series');
    console.log(
      `  gex_levels: ${lv.rows.toLocaleString('en-US')} rows (${ticks.toLocaleString('en-US')} instants x 2 models, ${DAYS} d to ${iso(END)}), ` +
        `${lv.parts} parts, ${mib(lv.bytes)} on disk; fill ${levelsS.toFixed(1)} s`,
    );
    console.log(
      `  gex_level_series (the study's reads, filled by its view): ${series.rows.toLocaleString('en-US')} rows, ${series.parts} parts, ${mib(series.bytes)} on disk`,
    );
    console.log(
      `  gex_snapshots: ${vs.rows.toLocaleString('en-US')} rows (${VENUE_DAYS} d x ${VENUES.length} venues, ${templates} templates of ~${PER_VENUE} instruments a venue), ` +
        `${vs.parts} parts, ${mib(vs.bytes)} on disk (${mib(vs.raw)} raw); fill ${venueS.toFixed(1)} s`,
    );
    console.log(
      `  background merges after the fill: ${settleS.toFixed(0)} s; load average ${loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}`,
    );

    const key = await benchKey(store);
    const clock = (): number => END + 10 * MIN;
    const rss0 = rssMb();
    const app = await testApp(
      store,
      { responseValidation: false },
      { clock, snapshots: new SnapshotCache(store, { pollMs: 0 }), requestLogging: false },
    );
    try {
      const url = (from: number, to: number, extra = ''): string =>
        `/v2/gex/level-study?symbol=BTCUSDT&from=${iso(from)}&to=${iso(to)}&horizon=4h&step=30m&positioning=flow${extra}`;
      let last: LevelStudy | null = null;
      const get = async (path: string, cache: 'HIT' | 'MISS'): Promise<number> => {
        const s = performance.now();
        const res = await app.inject({ url: path, headers: { 'x-api-key': key } });
        const ms = performance.now() - s;
        if (res.statusCode !== 200) throw new Error(`${path}: HTTP ${res.statusCode} ${res.body.slice(0, 300)}`);
        if (res.headers['x-cache'] !== cache) throw new Error(`${path}: x-cache ${String(res.headers['x-cache'])}, expected ${cache}`);
        last = (JSON.parse(res.body) as { data: LevelStudy }).data;
        return ms;
      };

      // (1) cold, a year: the first request after the app starts, then COLD distinct windows
      const first = await get(url(START, END), 'MISS');
      const year = last as LevelStudy | null;
      const cold = stat(await timesMs(COLD, (i) => get(url(START, END - (i + 1) * STEP), 'MISS'), 0));
      const rssCold = rssMb();
      // (2) warm: the first window again, from the route cache
      const warm = stat(await timesMs(WARM, () => get(url(START, END), 'HIT'), 0));
      // (3) 90 days: all venues, then deribit only (distinct windows, cold)
      const q90 = VENUE_DAYS > 0 ? VENUE_DAYS : 90;
      const from90 = END - q90 * DAY;
      const all90 = stat(await timesMs(COLD, (i) => get(url(from90, END - i * STEP), 'MISS'), 0));
      const deribit90 =
        VENUE_DAYS > 0 ? stat(await timesMs(COLD, (i) => get(url(from90, END - i * STEP, '&exchanges=deribit'), 'MISS'), 0)) : null;
      const filtered = last as LevelStudy | null;

      // baselines, same run: the route's SELECT alone, the engine's scan alone, the read into objects, the computation
      const params = { symbol: 'BTCUSDT', model: 'flow', from: START - INTERVAL, to: END };
      let rows = 0;
      // In the route's pieces (PATH_PIECE_MS): chDB hands a result over ~10 MiB to JavaScript several times slower per byte.
      const bare = stat(
        await timesMs(
          BASELINE,
          async () => {
            rows = 0;
            for (let from = params.from; from <= params.to; from += PATH_PIECE_MS) {
              const until = Math.min(from + PATH_PIECE_MS, params.to + 1);
              rows += (await store.queryColumns(STUDY_SQL, { symbol: params.symbol, model: params.model, from, until })).rows;
            }
          },
          1,
        ),
      );
      const scan = stat(await timesMs(BASELINE, () => store.query(SCAN_SQL, params), 1));
      const read = stat(await timesMs(BASELINE, () => studyColumns(store, 'BTCUSDT', 'flow', START - INTERVAL, END, STEP), 1));
      const snaps = await studyColumns(store, 'BTCUSDT', 'flow', START - INTERVAL, END, STEP);
      const opts: StudyOptions = { from: START, to: END, horizonMs: HORIZON, stepMs: STEP };
      const pure = stat(await timesMs(BASELINE, () => Promise.resolve(levelStudyOf(snaps, opts)), 1));
      let venueRead: Stat | null = null;
      if (VENUE_DAYS > 0) {
        const snaps90 = await studyColumns(store, 'BTCUSDT', 'flow', from90 - INTERVAL, END, STEP);
        const o90: StudyOptions = { from: from90, to: END, horizonMs: HORIZON, stepMs: STEP };
        venueRead = stat(
          await timesMs(BASELINE, () => withVenueLevels(store, 'BTCUSDT', 'flow', snaps90, sampledTimes(snaps90.t, o90), ['deribit']), 1),
        );
      }
      const maxRss = process.resourceUsage().maxRSS / 1024;

      const x = (v: number): string => `${(v / bare.p50).toFixed(2)}x`;
      console.log(
        `  load average after the measures: ${loadavg()
          .map((v) => v.toFixed(1))
          .join(' ')}`,
      );
      console.log(
        `  year study: ${year?.instants ?? 0} instants, ${year?.missing ?? 0} missing; hvl touch ${year?.levels.hvl.touch_rate?.toFixed(3)} ` +
          `hold ${year?.levels.hvl.hold_rate?.toFixed(3)} edge ${year?.levels.hvl.edge?.toFixed(3)}; call_resistance touch ` +
          `${year?.levels.call_resistance.touch_rate?.toFixed(3)}; put_support touch ${year?.levels.put_support.touch_rate?.toFixed(3)}; ` +
          `net GEX > 0 / < 0: ${year?.regimes.net_gex_positive.count} / ${year?.regimes.net_gex_negative.count}`,
      );
      if (filtered !== null && deribit90 !== null)
        console.log(
          `  ${q90}-day deribit study: ${filtered.instants} instants, ${filtered.missing} missing; hvl touch ${filtered.levels.hvl.touch_rate?.toFixed(3)} ` +
            `(${filtered.levels.hvl.instants} instants with an hvl); call_resistance ${filtered.levels.call_resistance.instants}, put_support ${filtered.levels.put_support.instants}`,
        );
      console.log(`                                                         p50 ms    max ms   p50 / bare SELECT`);
      console.log(
        `  baseline: bare SELECT of the year's rows, 90-d pieces   ${fmt(bare.p50)}  ${fmt(bare.max)}     1.00x   (${rows.toLocaleString('en-US')} rows, ~${mib(rows * ROW_BYTES)} Native)`,
      );
      console.log(
        `  baseline: engine scan, aggregates only (no rows sent)   ${fmt(scan.p50)}  ${fmt(scan.max)}  ${x(scan.p50).padStart(8)}`,
      );
      console.log(
        `  read as columns (studyColumns)                          ${fmt(read.p50)}  ${fmt(read.max)}  ${x(read.p50).padStart(8)}`,
      );
      console.log(
        `  pure computation (levelStudyOf, in memory)              ${fmt(pure.p50)}  ${fmt(pure.max)}  ${x(pure.p50).padStart(8)}`,
      );
      console.log(
        `  route, year, first request after app start              ${fmt(first)}  ${fmt(first)}  ${x(first).padStart(8)}   target < ${TARGET_MS} ms: ${first < TARGET_MS ? 'OK' : 'ABOVE'}`,
      );
      console.log(
        `  route, year, cold (${COLD} distinct windows)                ${fmt(cold.p50)}  ${fmt(cold.max)}  ${x(cold.p50).padStart(8)}   target < ${TARGET_MS} ms: ${cold.p50 < TARGET_MS ? 'OK' : 'ABOVE'} (max ${cold.max < TARGET_MS ? 'OK' : 'ABOVE'})`,
      );
      console.log(
        `  route, year, warm (route cache hit, ${WARM})                ${fmt(warm.p50)}  ${fmt(warm.max)}  ${x(warm.p50).padStart(8)}`,
      );
      console.log(
        `  route, ${q90} d, all venues, cold (${COLD})                    ${fmt(all90.p50)}  ${fmt(all90.max)}  ${x(all90.p50).padStart(8)}`,
      );
      if (deribit90 !== null && venueRead !== null) {
        console.log(
          `  route, ${q90} d, exchanges=deribit, cold (${COLD})             ${fmt(deribit90.p50)}  ${fmt(deribit90.max)}  ${x(deribit90.p50).padStart(8)}   ${(deribit90.p50 / all90.p50).toFixed(1)}x the unfiltered ${q90} d`,
        );
        console.log(`    of which venue rows read + re-aggregated (withVenueLevels) ${fmt(venueRead.p50)}  ${fmt(venueRead.max)}`);
      } else console.log('  route, exchanges=deribit: not measured (BENCH_STUDY_VENUE_DAYS=0: no gex_snapshots rows)');
      console.log(
        `  where a cold year goes (p50s above): engine scan ${scan.p50.toFixed(0)} ms, rows out of the engine + Native decode ` +
          `${(bare.p50 - scan.p50).toFixed(0)} ms (bare SELECT - scan), snapshot objects ${(read.p50 - bare.p50).toFixed(0)} ms ` +
          `(studyColumns - bare SELECT), computation ${pure.p50.toFixed(0)} ms; sum ${(read.p50 + pure.p50).toFixed(0)} ms vs the route's ${cold.p50.toFixed(0)} ms`,
      );
      console.log(
        `  RSS (process, incl. the embedded engine): ${rss0.toFixed(0)} MB before the app, ${rssCold.toFixed(0)} MB after the cold year requests, peak ${maxRss.toFixed(0)} MB`,
      );
    } finally {
      await app.close();
    }
  } finally {
    await dispose();
  }
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) await runLevelStudyBench();
