import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChainSnapshot } from '#processors/analytics/types.ts';
import { rowsFromChain } from '#processors/snapshots/compute-step.ts';
import { gammaFlowPoints, levelsOf } from '#processors/snapshots/levels-step.ts';
import { expectedChain, TICK } from '#processors/snapshots/testing/chain-fixture.ts';
import { storeLevelsAndFlow, storeSnapshotRows } from '#processors/snapshots/write-step.ts';
import { SnapshotCache } from '../gex/snapshot-cache.ts';
import { assertError, assertOk } from '../testing/assertions.ts';
import { migratedStore, testApp, testClock, userWithKey } from '../testing/harness.ts';
import type { ApiInstance } from '../types.ts';

const S = 30_000;
const TICKS = 180; // 90 minutes of 30 s snapshots
const T0 = TICK;
const T_END = T0 + (TICKS - 1) * S;
const iso = (ms: number): string => new Date(ms).toISOString();
const root = new URL('../../', import.meta.url).pathname;

/** Spot of tick k: two waves around 100,000 (crossing the chain's strikes and levels both ways). */
const spotAt = (k: number): number => 100_000 + 1_500 * Math.sin((2 * Math.PI * k) / 60) + 400 * Math.sin((2 * Math.PI * k) / 11);

/** The fixture chain at tick k with its spot moved (the processor's write path, as the live tick writes it). */
function chainAt(k: number): ChainSnapshot {
  const base = expectedChain();
  return { ...base, now: T0 + k * S, spot: spotAt(k) };
}

describe('/v2/gex/level-study over stored snapshots equals `gex study levels` over the as_of answers', () => {
  let t: Awaited<ReturnType<typeof migratedStore>>;
  let app: ApiInstance;
  let key: string;
  let evalKey: string;
  const clock = testClock(T_END + 10 * 60_000);
  const dir = mkdtempSync(join(tmpdir(), 'gex-study-'));

  before(async () => {
    t = await migratedStore();
    for (let k = 0; k < TICKS; k++) {
      const at = T0 + k * S;
      const rows = rowsFromChain(chainAt(k), 'live');
      await storeSnapshotRows(t.store, 'BTCUSDT', at, rows);
      const levels = levelsOf('BTCUSDT', at, rows);
      await storeLevelsAndFlow(t.store, levels, gammaFlowPoints(levels, { flow: null, std: null }));
    }
    key = await userWithKey(t.store, { userId: 'study', plan: 'enterprise' });
    evalKey = await userWithKey(t.store, { userId: 'study-eval', plan: 'terminal_yearly', evaluation: true });
    app = await testApp(t.store, {}, { clock, snapshots: new SnapshotCache(t.store, { pollMs: 0 }) });
  });
  after(async () => {
    await app.close();
    await t.dispose();
    rmSync(dir, { recursive: true, force: true });
  });
  const get = (url: string, k = key) => app.inject({ url, headers: { 'x-api-key': k } });

  type Study = {
    symbol: string;
    positioning: string;
    instants: number;
    missing: number;
    levels: Record<string, { instants: number; touched: number; held: number; placebo: { touched: number } }>;
    regimes: Record<string, { count: number }>;
  };

  for (const filter of ['positioning=flow', 'positioning=std', 'positioning=flow&exchanges=deribit,okx']) {
    test(`${filter}: route = CLI on the exported as_of answers, numbers non-trivial`, async () => {
      const window = `from=${iso(T0)}&to=${iso(T_END)}&horizon=15m&step=5m`;
      const route = assertOk<Study>(await get(`/v2/gex/level-study?symbol=BTCUSDT&${window}&${filter}`));
      const lines: string[] = [];
      for (let k = 0; k < TICKS; k++) {
        const res = await get(`/v2/gex/levels?symbol=BTCUSDT&as_of=${iso(T0 + k * S)}&${filter}`);
        assert.equal(res.statusCode, 200, res.body);
        lines.push(res.body);
      }
      const file = join(dir, `${filter.replace(/[^a-z]/g, '_')}.jsonl`);
      writeFileSync(file, `${lines.join('\n')}\n`);
      const cli = spawnSync(
        process.execPath,
        [
          '--import',
          'tsx',
          'app/cli/main.ts',
          'study',
          'levels',
          '--levels',
          file,
          '--horizon',
          '15m',
          '--step',
          '5m',
          '--from',
          iso(T0),
          '--to',
          iso(T_END),
        ],
        { cwd: root, encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'warn' } },
      );
      assert.equal(cli.status, 0, cli.stderr);
      const { symbol, positioning, ...study } = route.data;
      assert.deepEqual([symbol, positioning], ['BTCUSDT', filter.includes('std') ? 'std' : 'flow']);
      assert.deepEqual(study, JSON.parse(cli.stdout));
      // 90 minutes, 15-minute horizon, 5-minute grid: instants at T0 … T_END − 15 min (T0 is a 5-minute multiple).
      assert.equal(route.data.instants, Math.floor((T_END - 15 * 60_000 - T0) / 300_000) + 1);
      assert.equal(route.data.missing, 0);
      const touched = Object.values(route.data.levels).reduce((n, l) => n + l.touched + l.placebo.touched, 0);
      assert.ok(touched > 0, 'the waves reach some levels');
      const r = route.data.regimes;
      assert.equal(r['net_gex_positive']!.count + r['net_gex_negative']!.count, route.data.instants, 'net GEX is never exactly 0 here');
      if (filter.includes('exchanges')) assert.deepEqual(route.meta['exchanges_filtered'], ['deribit', 'okx']);
    });
  }

  test('cached about 30 s; plan window; days; 422 on bad windows and durations', async () => {
    const url = `/v2/gex/level-study?symbol=BTCUSDT&from=${iso(T0)}&to=${iso(T_END)}&horizon=15m&step=5m`;
    assert.equal((await get(url)).headers['x-cache'], 'HIT', 'the flow study above is cached');
    // An evaluation key on the 30-day plan: a 60-day window is served from the plan floor.
    const ev = assertOk<Study & { from: string }>(await get('/v2/gex/level-study?symbol=BTCUSDT&days=60', evalKey));
    assert.equal(ev.meta['history_depth_enforced'], true);
    const floor = clock() - 30 * 86_400_000;
    assert.equal(ev.data.from, iso(floor));
    const days = assertOk<Study>(await get('/v2/gex/level-study?symbol=BTCUSDT&days=1&horizon=15m&step=5m'));
    assert.equal(days.data.instants > 0 && days.data.missing > 0, true, 'a day window over 90 minutes of data has missing instants');
    for (const qs of [
      `from=${iso(T_END)}&to=${iso(T0)}`,
      `to=${iso(clock() + 60_000)}`,
      `from=${iso(T0)}&days=2`,
      'horizon=2m',
      'horizon=8d',
      'step=0m',
      'step=5x',
      'days=0',
      'from=yesterday',
    ])
      assertError(await get(`/v2/gex/level-study?symbol=BTCUSDT&${qs}`), 422, 'VALIDATION_ERROR');
  });
});
