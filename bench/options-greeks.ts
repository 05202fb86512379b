/**
 * Greek-exposure and stress-history routes benchmark. A synthetic BTCUSDT chain (4 venues × ~750 = ~3k contracts)
 * is stored as raw tickers + index prices (what the raw writer stores) with one snapshot at the tick; then, over
 * HTTP on loopback (keep-alive, to the last byte of the body), p50 of
 *   - /v2/options/greeks/gamma (latest snapshot; the chain of the instant memoized after the first request),
 *     the first (cold) request, and include=exchange_breakdown,
 *   - /v2/gex/stress-history (24 h at 5 m and at 30 s, and with a venue filter) over BENCH_STRESS_HOURS of
 *     stored per-snapshot stress rows (default 24 h = 2,880 snapshots),
 * against, in the same run, a bare Fastify route returning the same bytes and `SELECT 1` on the store.
 * Run: npm run bench -- options-greeks   (BENCH_ROUNDS, BENCH_STRESS_HOURS shorten it)
 */
import { Agent } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { migrate } from '#clickhouse/migrate.ts';
import { createStore, type Store } from '#clickhouse/store.ts';
import { tempDataPath } from '#clickhouse/testing/temp-store.ts';
import { syntheticChain } from '#processors/analytics/testing/synthetic-chain.ts';
import type { ChainSnapshot } from '#processors/analytics/types.ts';
import { rowsFromChain } from '#processors/snapshots/compute-step.ts';
import { LEVELS_TABLE, toLevelsRecord } from '#processors/snapshots/levels-record.ts';
import { MODELS, levelsOf } from '#processors/snapshots/levels-step.ts';
import { STRESS_TABLE, storeStressRows, toStressRecord } from '#processors/snapshots/stress-record.ts';
import { indexPrice, ticker } from '#processors/snapshots/testing/events.ts';
import { storeEvents } from '#processors/snapshots/testing/store-events.ts';
import { storeLevelsAndFlow, storeSnapshotRows } from '#processors/snapshots/write-step.ts';
import type { MarketEvent } from '#schemas/events.ts';
import { AccountsRepository } from '#query-api/accounts/repository.ts';
import { buildApp } from '#query-api/app.ts';
import { apiConfig } from '#query-api/config.ts';
import { SnapshotCache } from '#query-api/gex/snapshot-cache.ts';
import { levelRowsAt } from '#query-api/gex/snapshot-point-reads.ts';
import { httpGet } from './http-get.ts';

const INTERVAL = 30_000;
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 200);
const STRESS_HOURS = Number(process.env['BENCH_STRESS_HOURS'] ?? 24);
const TARGET_MS = 15;

function p(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
}

async function times(n: number, fn: () => Promise<void>): Promise<number[]> {
  for (let i = 0; i < Math.min(5, n); i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out;
}

const f = (ms: number): string => `${ms.toFixed(2)} ms`;

/** Raw tickers and index prices of a chain, as the venues would have sent them just before the tick. */
function rawEvents(chain: ChainSnapshot): MarketEvent[] {
  const ts = chain.now - 5_000;
  const tickers: MarketEvent[] = chain.instruments.map((i, n) => ({
    type: 'option_ticker',
    event: ticker({
      venue: i.venue,
      instrument: `BENCH-${n}`,
      strike: i.strike,
      expiry: i.expiry,
      type: i.type,
      oi: i.openInterest,
      iv: i.markIv,
      forward: i.forward,
      ts,
    }),
  }));
  return [...tickers, { type: 'index', event: indexPrice('deribit', chain.spot, ts) }];
}

/** Stress rows and gex_levels rows of `hours` of snapshots ending before `tick` (the same chain's rows, shifted). */
async function fillStressHistory(store: Store, chain: ChainSnapshot, tick: number, hours: number): Promise<number> {
  const rows = rowsFromChain(chain, 'live');
  const snap = levelsOf('BTCUSDT', chain.now, rows);
  const n = Math.floor((hours * 3_600_000) / INTERVAL);
  const batch = 200;
  for (let start = 1; start <= n; start += batch) {
    const ticks = Array.from({ length: Math.min(batch, n - start + 1) }, (_, i) => tick - (start + i) * INTERVAL);
    await store.insert(
      STRESS_TABLE,
      ticks.flatMap((t) => rows.map((r) => toStressRecord({ ...r, computed_at: t }))),
    );
    await store.insert(
      LEVELS_TABLE,
      ticks.flatMap((t) =>
        MODELS.map((m) => toLevelsRecord('BTCUSDT', t, m, snap.levels[m], snap.meta.spot, snap.meta.perp_price, snap.coverage)),
      ),
    );
  }
  return n;
}

export async function runOptionsGreeksBench(): Promise<void> {
  const dataPath = tempDataPath('gex-bench-greeks-');
  const store = await createStore({ dataPath });
  try {
    await migrate(store);
    const repo = new AccountsRepository(store);
    await repo.upsertUser({ userId: 'bench', plan: 'enterprise', status: 'active', evaluation: false });
    const { key } = await repo.createKey('bench', 'gex');
    const tick = Math.floor(Date.now() / INTERVAL) * INTERVAL;
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
    await storeEvents(store, rawEvents(chain));
    const rows = rowsFromChain(chain, 'live');
    await storeSnapshotRows(store, 'BTCUSDT', tick, rows);
    await store.insert(STRESS_TABLE, rows.map(toStressRecord));
    await storeLevelsAndFlow(store, levelsOf('BTCUSDT', tick, rows), []);
    const t0 = performance.now();
    const stressSnapshots = await fillStressHistory(store, chain, tick, STRESS_HOURS);
    const fillS = (performance.now() - t0) / 1000;

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
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const headers = { 'x-api-key': key };
    let bytes = 0;
    const get = (path: string) => async (): Promise<void> => {
      const r = await httpGet(agent, new URL(path, base), headers);
      if (r.status !== 200) throw new Error(`${path}: HTTP ${r.status}`);
      bytes = r.bytes;
    };
    const gamma = '/v2/options/greeks/gamma?symbol=BTCUSDT';
    const c0 = performance.now();
    await get(gamma)();
    const cold = performance.now() - c0;
    const sample = await (await fetch(new URL(gamma, base), { headers })).text();
    const bare = Fastify({ logger: false });
    bare.get('/bare', async (_req, reply) => reply.type('application/json; charset=utf-8').send(sample));
    const bareUrl = `http://127.0.0.1:${((await bare.listen({ host: '127.0.0.1', port: 0 }), bare.server.address()) as AddressInfo).port}/bare`;
    try {
      const g = p(await times(ROUNDS, get(gamma)), 0.5);
      const gBytes = bytes;
      const gb = p(await times(ROUNDS, get(`${gamma}&include=exchange_breakdown`)), 0.5);
      const vanna = p(await times(ROUNDS, get('/v2/options/greeks/surfaces/vanna?symbol=BTCUSDT')), 0.5);
      const grid = p(await times(ROUNDS, get('/v2/options/greeks/3d/surface?symbol=BTCUSDT&metric=iv')), 0.5);
      const bareP = p(
        await times(ROUNDS, async () => {
          await httpGet(agent, new URL(bareUrl), {});
        }),
        0.5,
      );
      const select1 = p(
        await times(ROUNDS, async () => {
          await store.query('SELECT 1');
        }),
        0.5,
      );
      const stressRounds = Math.max(5, Math.floor(ROUNDS / 10));
      const s5 = p(
        await times(
          stressRounds,
          get('/v2/gex/stress-history?symbol=BTCUSDT&positioning=std&hours=24&interval=5m&as_of=' + new Date(tick).toISOString()),
        ),
        0.5,
      );
      const s30 = p(
        await times(
          stressRounds,
          get('/v2/gex/stress-history?symbol=BTCUSDT&positioning=std&hours=24&interval=30s&as_of=' + new Date(tick).toISOString()),
        ),
        0.5,
      );
      const s30Bytes = bytes;
      const sVen = p(
        await times(
          stressRounds,
          get(
            '/v2/gex/stress-history?symbol=BTCUSDT&positioning=std&hours=24&interval=5m&exchanges=deribit,okx&as_of=' +
              new Date(tick).toISOString(),
          ),
        ),
        0.5,
      );
      // The alternative to stored stress rows: re-reading each snapshot's venue rows (levels_pack) at request time.
      const oneSnapshot = p(
        await times(stressRounds, async () => {
          await levelRowsAt(store, 'BTCUSDT', tick, ['deribit', 'okx', 'bybit', 'binance']);
        }),
        0.5,
      );
      // The cycle's extra step: one gex_stress insert per tick (4 venue rows), at ticks after everything measured.
      let next = tick;
      const write = p(
        await times(20, async () => {
          next += INTERVAL;
          await storeStressRows(
            store,
            'BTCUSDT',
            next,
            rows.map((r) => ({ ...r, computed_at: next })),
          );
        }),
        0.5,
      );
      process.stdout.write(
        [
          `options-greeks bench (embedded chDB; ${chain.instruments.length} contracts on 4 venues; ${stressSnapshots} stored stress snapshots (${STRESS_HOURS} h) filled in ${fillS.toFixed(1)} s; ${cpus().length} cores, load avg ${loadavg()
            .map((x) => x.toFixed(1))
            .join(' ')}; p50 of ${ROUNDS} over HTTP keep-alive)`,
          `  /v2/options/greeks/gamma          : p50 ${f(g)} (${(gBytes / 1e3).toFixed(1)} kB)  target < ${TARGET_MS} ms: ${g < TARGET_MS ? 'OK' : 'ABOVE'}; ${(g / bareP).toFixed(1)}x bare Fastify, ${(g / select1).toFixed(1)}x SELECT 1`,
          `    first request (chain rebuilt from the raw tables): ${f(cold)}`,
          `    include=exchange_breakdown       : p50 ${f(gb)}`,
          `  /v2/options/greeks/surfaces/vanna : p50 ${f(vanna)}`,
          `  /v2/options/greeks/3d/surface iv  : p50 ${f(grid)}`,
          `  baseline bare Fastify, same bytes : p50 ${f(bareP)}`,
          `  baseline SELECT 1 (store)         : p50 ${f(select1)}`,
          `  /v2/gex/stress-history 24 h, 5m   : p50 ${f(s5)} (p50 of ${stressRounds})`,
          `    24 h, 30s (every snapshot)       : p50 ${f(s30)} (${(s30Bytes / 1e3).toFixed(0)} kB)`,
          `    24 h, 5m, exchanges=deribit,okx  : p50 ${f(sVen)} (zero gamma re-derived from the venues' profiles)`,
          `  gex_stress write per tick (4 venue rows, in the snapshot cycle): p50 ${f(write)}`,
          `  read-time alternative: one snapshot's venue rows from gex_snapshots p50 ${f(oneSnapshot)} -> 24 h at 5m ≈ ${f(oneSnapshot * 288)}, at 30s ≈ ${f(oneSnapshot * 2880)} (why stress rows are stored at the tick)`,
          '',
        ].join('\n'),
      );
    } finally {
      agent.destroy();
      await bare.close();
      await app.close();
    }
  } finally {
    await store.close();
    rmSync(dataPath, { recursive: true, force: true });
  }
}
