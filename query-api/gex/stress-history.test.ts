import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '#clickhouse/store.ts';
import { computeLevelsFromChain } from '#processors/analytics/chain-file.ts';
import { buildVenueRows } from '#processors/analytics/snapshot-row.ts';
import { shockValues, sumArrays } from '#processors/analytics/stress.ts';
import type { ChainSnapshot, DealerModel } from '#processors/analytics/types.ts';
import { SnapshotCache } from './snapshot-cache.ts';
import { assertError, assertOk } from '../testing/assertions.ts';
import { A, B, C, chainAt, seedGex } from '../testing/gex-fixture.ts';
import { migratedStore, testApp, testClock, userWithKey } from '../testing/harness.ts';
import type { ApiInstance } from '../types.ts';

const iso = (ms: number): string => new Date(ms).toISOString();
const only = (chain: ChainSnapshot, venues: readonly string[]): ChainSnapshot => ({
  ...chain,
  instruments: chain.instruments.filter((i) => venues.includes(i.venue)),
});

interface Point {
  ts: string;
  spot: number;
  positioning: string;
  zero_gamma: number | null;
  gex: number[];
}
interface Data {
  positioning: string;
  unit: string;
  shocks_pct: number[];
  interval: string;
  from: string;
  to: string;
  points: Point[];
}

/** The engine on the chain of a tick: shocks = Σ venue profiles at the shock grid points, zero gamma = levels hvl. */
function expected(chain: ChainSnapshot, model: DealerModel): { gex: number[]; hvl: number | null; positioning: string } {
  const levels = computeLevelsFromChain(chain, model);
  const rows = buildVenueRows(chain);
  const gex = sumArrays(
    rows.map((r) => shockValues(levels.positioning === 'flow' ? r.profile_flow : r.profile_std)),
    9,
  );
  return { gex, hvl: levels.all_expiry.hvl, positioning: levels.positioning };
}

function close(got: readonly number[], want: readonly number[], what: string): void {
  assert.equal(got.length, want.length, what);
  got.forEach((g, i) =>
    assert.ok(Math.abs(g - (want[i] as number)) <= 1e-9 * Math.max(1, Math.abs(want[i] as number)), `${what}[${i}]: ${g} vs ${want[i]}`),
  );
}

describe('/v2/gex/stress-history on a real embedded store', () => {
  let t: { store: Store; dispose(): Promise<void> };
  let app: ApiInstance;
  let key: string;
  const clock = testClock(C + 10_000);

  before(async () => {
    t = await migratedStore();
    await seedGex(t.store);
    const cache = new SnapshotCache(t.store, { pollMs: 0 });
    await cache.refresh();
    key = await userWithKey(t.store, { userId: 'stress', plan: 'enterprise' });
    app = await testApp(t.store, {}, { clock, snapshots: cache });
  });
  after(async () => {
    await app.close();
    await t.dispose();
  });
  const get = (path: string) => app.inject({ url: path, headers: { 'x-api-key': key } });

  test('every snapshot (30s): shocked totals and zero gamma equal the engine on each tick, both models', async () => {
    for (const model of ['std', 'flow'] as const) {
      const { data, meta } = assertOk<Data>(await get(`/v2/gex/stress-history?symbol=BTCUSDT&positioning=${model}&interval=30s&hours=1`));
      assert.deepEqual(data.shocks_pct, [-20, -15, -10, -5, 0, 5, 10, 15, 20]);
      assert.equal(data.unit, 'usd_delta_per_1pct_move');
      assert.deepEqual([data.from, data.to], [iso(C - 3_600_000), iso(C)]);
      assert.deepEqual(
        data.points.map((p) => p.ts),
        [iso(A), iso(B), iso(C)],
      );
      for (const [i, tick] of [A, B, C].entries()) {
        const want = expected(chainAt(tick), model);
        const p = data.points[i] as Point;
        close(p.gex, want.gex, `${model} ${iso(tick)}`);
        close([p.gex[4] as number], [computeLevelsFromChain(chainAt(tick), model).all_expiry.net_gex], 'shock 0 = net GEX');
        assert.equal(p.zero_gamma, want.hvl);
        assert.equal(p.positioning, want.positioning);
        assert.equal(p.spot, chainAt(tick).spot);
      }
      assert.equal(meta.computed_at, iso(C));
      assert.deepEqual((meta.extra as { positioning: unknown }).positioning, { requested: model, served: model });
    }
  });

  test('exchanges re-aggregates the venue rows; zero gamma re-derived from their profile', async () => {
    const { data, meta } = assertOk<Data>(
      await get('/v2/gex/stress-history?symbol=BTCUSDT&positioning=std&interval=30s&exchanges=okx,nope'),
    );
    assert.deepEqual(meta.exchanges_filtered, ['okx']);
    for (const [i, tick] of [A, B, C].entries()) {
      const want = expected(only(chainAt(tick), ['okx']), 'std');
      const p = data.points[i] as Point;
      close(p.gex, want.gex, `okx ${iso(tick)}`);
      if (want.hvl === null) assert.equal(p.zero_gamma, null);
      else close([p.zero_gamma ?? NaN], [want.hvl], 'zero gamma');
    }
  });

  test('interval buckets keep the newest snapshot of each bucket; SOL falls back to std', async () => {
    const five = assertOk<Data>(await get('/v2/gex/stress-history?symbol=BTCUSDT'));
    assert.equal(five.data.interval, '5m');
    assert.deepEqual(
      five.data.points.map((p) => p.ts),
      [iso(C)],
    );
    const sol = assertOk<Data>(await get('/v2/gex/stress-history?symbol=SOLUSDT&positioning=flow'));
    assert.equal(sol.data.positioning, 'std');
    assert.equal(sol.data.points.length, 1);
    assert.ok((sol.data.points[0]?.gex ?? []).some((v) => v !== 0));
    assert.deepEqual((sol.meta.extra as { positioning: unknown }).positioning, {
      requested: 'flow',
      served: 'std',
      fallback_reason: 'flow_not_available_for_symbol',
    });
  });

  test('as_of: never after the instant, identical bytes twice; 404 before the first; 422 cases', async () => {
    const url = `/v2/gex/stress-history?symbol=BTCUSDT&positioning=std&interval=30s&as_of=${iso(C - 1)}`;
    const first = await get(url);
    const r = assertOk<Data>(first);
    assert.deepEqual(
      r.data.points.map((p) => p.ts),
      [iso(A), iso(B)],
    );
    assert.deepEqual((r.meta.extra as { as_of: unknown }).as_of, { requested: iso(C - 1), snapshot_at: iso(B), lag_seconds: 29.999 });
    assert.equal(JSON.stringify((await get(url)).json<{ data: unknown }>().data), JSON.stringify(first.json<{ data: unknown }>().data));
    assertError(await get(`/v2/gex/stress-history?symbol=BTCUSDT&as_of=${iso(A - 1)}`), 404, 'NOT_FOUND');
    assertError(await get('/v2/gex/stress-history?symbol=ETHUSDT'), 404, 'NOT_FOUND');
    for (const bad of ['hours=0', 'hours=169', 'interval=2m', 'positioning=naive', `as_of=${iso(clock() + 1000)}`, 'as_of=yesterday']) {
      const e = assertError(await get(`/v2/gex/stress-history?symbol=BTCUSDT&${bad}`), 422, 'VALIDATION_ERROR');
      assert.ok(Array.isArray((e.error.details as { errors: unknown[] }).errors), bad);
    }
    assertError(await get('/v2/gex/stress-history?symbol=DOGEUSDT'), 422, 'VALIDATION_ERROR');
  });
});
