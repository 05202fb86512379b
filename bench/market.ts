/**
 * Market series benchmark: a year of 1-minute BTCUSDT states with ten venues (bench/market-fill.ts; the hourly and
 * daily tables fill through migration 022's views) in an embedded store, then p50 latency of requests over HTTP to
 * the real app listening on loopback (keep-alive; time to the last byte of the body, as a client sees it) of
 *   - /v2/market/bundle at 1h over 8760 hours (all six series, 8,760 points; read from the hourly tables),
 *   - /v2/market/bundle at 1d over 8760 hours (365 points; the daily tables),
 *   - /v2/market/candles at 1m over 500 hours (30,000 points; the 1-minute table),
 * cold (server cache off: every request goes through the serving path's change check, query-api/market/serving.ts)
 * and cached, each against a baseline measured in the same run: one `SELECT count()` of market_trades_1m over the
 * same range; also the first request (the serving structure built) and requests each preceded by a late trade
 * written into a closed bucket (the changed bucket re-read). Each request's time is split in-process into engine, layout and JSON
 * (bench/market-phases.ts); the year-long 1h bundle is also read from the 1-minute tables (the pre-022 path) on
 * the same data, for the ratio.
 * Run: npm run bench -- market
 */
import { rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { migrate } from '#clickhouse/migrate.ts';
import { createStore, type Store } from '#clickhouse/store.ts';
import { tempDataPath } from '#clickhouse/testing/temp-store.ts';
import { buildApp } from '#query-api/app.ts';
import { apiConfig } from '#query-api/config.ts';
import { AccountsRepository } from '#query-api/accounts/repository.ts';
import { trade } from '#query-api/market/testing/fixtures.ts';
import { gridFor, type MarketInterval } from '#query-api/market/grid.ts';
import type { TierChoice } from '#query-api/market/series.ts';
import { MarketServing } from '#query-api/market/serving.ts';
import { httpGet } from './http-get.ts';
import { fillYear, MIN_S, tableRows, YEAR_MINUTES } from './market-fill.ts';
import { cpuMsSince, measurePhases, type Phases, type Read } from './market-phases.ts';

const ROUNDS = 30;
const WARMUP = 3;
/** Rounds of the in-process roll-up path (the pre-serving read, for the ratio). */
const ROLLUP_ROUNDS = 10;

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

interface Case {
  readonly label: string;
  readonly what: Read;
  readonly interval: MarketInterval;
  readonly hours: number;
  readonly targetMs: number;
}

const CASES: readonly Case[] = [
  { label: 'bundle 1h x 8760 h (6 series, 8,760 points)', what: 'bundle', interval: '1h', hours: 8760, targetMs: 60 },
  { label: 'bundle 1d x 8760 h (6 series, 365 points)', what: 'bundle', interval: '1d', hours: 8760, targetMs: 20 },
  { label: 'candles 1m x 500 h (30,000 points)', what: 'candles', interval: '1m', hours: 500, targetMs: 70 },
];

const urlOf = (c: Case): string => `/v2/market/${c.what}?symbol=BTCUSDT&interval=${c.interval}&hours=${c.hours}`;
const f = (x: number): string => `${x.toFixed(1)} ms`;

/** p50 of each phase over ROUNDS in-process reads (the serving path when `serving` is given, else the roll-up path). */
async function phasesP50(store: Store, c: Case, now: number, tier: TierChoice, rounds = ROUNDS, serving?: MarketServing): Promise<Phases> {
  const grid = gridFor(c.interval, c.hours, now);
  for (let i = 0; i < WARMUP; i++) await measurePhases(store, grid, c.what, tier, serving);
  const all: Phases[] = [];
  for (let i = 0; i < rounds; i++) all.push(await measurePhases(store, grid, c.what, tier, serving));
  const at = (k: keyof Phases): number =>
    p(
      all.map((x) => x[k]),
      0.5,
    );
  return { engine: at('engine'), layout: at('layout'), json: at('json'), readCpu: at('readCpu') };
}

const phaseLine = (x: Phases): string => `engine ${f(x.engine)} + layout ${f(x.layout)} + JSON ${f(x.json)} (read CPU ${f(x.readCpu)})`;
const readAndJson = (x: Phases): number => x.engine + x.layout + x.json;

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
    const rows = await tableRows(store);

    const repo = new AccountsRepository(store);
    await repo.upsertUser({ userId: 'bench', plan: 'enterprise', status: 'active', evaluation: false });
    const key = (await repo.createKey('bench', 'gex')).key;
    const apps = {
      cold: await buildApp({ store, config: apiConfig({ marketCacheMs: 0 }), logger: false, clock: () => now }),
      cached: await buildApp({ store, config: apiConfig({ marketCacheMs: 30_000 }), logger: false, clock: () => now }),
    };
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const base = {
        cold: await apps.cold.listen({ host: '127.0.0.1', port: 0 }),
        cached: await apps.cached.listen({ host: '127.0.0.1', port: 0 }),
      };
      let bytes = 0;
      let cpu: number[] = [];
      const get = (which: keyof typeof apps, url: string) => async (): Promise<void> => {
        const c0 = process.cpuUsage();
        const r = await httpGet(agent, new URL(url, base[which]), { 'x-api-key': key });
        cpu.push(cpuMsSince(c0));
        if (r.status !== 200) throw new Error(`${url}: HTTP ${r.status}`);
        bytes = r.bytes;
      };
      const count = (hours: number) => async (): Promise<void> => {
        await store.query("SELECT count() FROM market_trades_1m WHERE symbol = {s:String} AND bucket >= toDateTime({f:UInt32}, 'UTC')", {
          s: 'BTCUSDT',
          f: Math.floor(now / 1000) - hours * 3600,
        });
      };
      const lines = [
        `market bench (embedded chDB; 1 year of BTCUSDT states, ten venues: ${rows}; filled in ${((performance.now() - t0) / 1000).toFixed(1)} s ` +
          `(1m fill ${fillS.toFixed(1)} s); ${cpus().length} cores, load avg ${loadavg()
            .map((x) => x.toFixed(1))
            .join(' ')}; ${ROUNDS} rounds after ${WARMUP} warm-up)`,
        '  p50 over HTTP on loopback (keep-alive, to the last byte of the body); engine / layout / JSON: p50 of in-process reads',
      ];
      const serving = new MarketServing();
      let late = 0;
      /** One perpetual trade written into a closed bucket (two days ago): the next request re-reads that bucket. */
      const lateTrade = async (): Promise<void> => {
        late++;
        await store.insert('perp_trades', [trade('perp', 'okx', now - 2 * 86_400_000 + late, `late-${late}`, 95_000, 0.01, 'buy')]);
      };
      for (const c of CASES) {
        cpu = [];
        const f0 = performance.now();
        await get('cold', urlOf(c))();
        const first = performance.now() - f0;
        const cold = p(await time(get('cold', urlOf(c))), 0.5);
        const coldCpu = p(cpu, 0.5);
        const size = bytes;
        const cached = p(await time(get('cached', urlOf(c))), 0.5);
        const baseline = p(await time(count(c.hours)), 0.5);
        const afterWrite: number[] = [];
        for (let i = 0; i < 10; i++) {
          await lateTrade();
          const w0 = performance.now();
          await get('cold', urlOf(c))();
          afterWrite.push(performance.now() - w0);
        }
        const phases = await phasesP50(store, c, now, 'auto', ROUNDS, serving);
        const rollUp = await phasesP50(store, c, now, 'auto', ROLLUP_ROUNDS);
        lines.push(
          `  ${c.label}, ${(size / 1e6).toFixed(2)} MB`,
          `    cold (cache off)  : p50 ${f(cold)}  target < ${c.targetMs} ms: ${cold < c.targetMs ? 'OK' : `ABOVE by ${f(cold - c.targetMs)}`}; ${(cold / baseline).toFixed(1)}x baseline; CPU (client + server, one process) p50 ${f(coldCpu)}`,
          `      first request (builds the serving structure): ${f(first)}; after a late trade written into a closed bucket before each request: p50 ${f(p(afterWrite, 0.5))} (10 rounds)`,
          `      in-process      : ${phaseLine(phases)}; HTTP, routing, meta, envelope: ${f(cold - phases.engine - phases.layout - phases.json)}`,
          `      engine ${(phases.engine / baseline).toFixed(2)}x baseline, JSON ${(phases.json / baseline).toFixed(2)}x baseline`,
          `      roll-up path (no serving structure), in-process p50 of ${ROLLUP_ROUNDS}: ${phaseLine(rollUp)}; read + JSON ` +
            `${f(readAndJson(rollUp))} = ${(readAndJson(rollUp) / readAndJson(phases)).toFixed(1)}x the serving path's`,
          `    server cache 30 s : p50 ${f(cached)}  ${(cached / baseline).toFixed(1)}x baseline`,
          `    baseline SELECT count() market_trades_1m, ${c.hours} h: p50 ${f(baseline)}`,
        );
      }
      const [year] = CASES;
      if (year !== undefined) {
        // Seconds per read under load: fewer rounds.
        const fromMinutes = await phasesP50(store, year, now, '1m', 7);
        const cascaded = await phasesP50(store, year, now, 'auto');
        const read = (x: Phases): number => x.engine + x.layout;
        lines.push(
          `  ${year.label} read from the 1-minute tables (the pre-022 path), same data, in-process, p50 of 7:`,
          `    ${phaseLine(fromMinutes)}; read (engine + layout) ${f(read(fromMinutes))} vs ${f(read(cascaded))} from the hourly ` +
            `tables = ${(read(fromMinutes) / read(cascaded)).toFixed(1)}x; read CPU ${(fromMinutes.readCpu / cascaded.readCpu).toFixed(1)}x`,
        );
      }
      lines.push(
        `  serving structures held in-process after the three cases (1h and 1d bundle, 1m candles): ${serving.size}, ${(serving.bytes() / 1e6).toFixed(1)} MB (estimate)`,
      );
      lines.push(
        `  load avg at the end ${loadavg()
          .map((x) => x.toFixed(1))
          .join(' ')}`,
      );
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
