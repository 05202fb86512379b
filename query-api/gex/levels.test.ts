import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '#clickhouse/store.ts';
import { computeLevelsFromChain } from '#processors/analytics/chain-file.ts';
import type { LevelsData } from '#processors/analytics/levels.ts';
import type { ChainSnapshot, DealerModel } from '#processors/analytics/types.ts';
import { SnapshotCache } from './snapshot-cache.ts';
import { VENUES } from '#schemas/events.ts';
import { assertError, assertOk } from '../testing/assertions.ts';
import { A, B, C, chainAt, M1, M2, solChain, SPOTS, seedGex } from '../testing/gex-fixture.ts';
import { migratedStore, testApp, testClock, userWithKey } from '../testing/harness.ts';
import type { ApiInstance } from '../types.ts';

const DAY = 86_400_000;
const iso = (ms: number): string => new Date(ms).toISOString();

/** The engine's levels as the API serves them: every block, no diagnostics. */
function engine(chain: ChainSnapshot, model: DealerModel): Omit<LevelsData, 'diagnostics'> {
  const { diagnostics: _d, ...rest } = computeLevelsFromChain(chain, model);
  return JSON.parse(JSON.stringify(rest)) as Omit<LevelsData, 'diagnostics'>;
}
const only = (chain: ChainSnapshot, venues: readonly string[]): ChainSnapshot => ({
  ...chain,
  instruments: chain.instruments.filter((i) => venues.includes(i.venue)),
});
const ALL = 'ranked,max_pain,expected_move,zones,spot,profile,by_strike';

describe('/v2/gex/levels', () => {
  let t: { store: Store; dispose(): Promise<void> };
  let app: ApiInstance;
  let key: string;
  const clock = testClock(C + 10_000);

  before(async () => {
    t = await migratedStore();
    await seedGex(t.store);
    const cache = new SnapshotCache(t.store, { pollMs: 0 });
    await cache.refresh();
    key = await userWithKey(t.store, { userId: 'u1', plan: 'enterprise' });
    app = await testApp(t.store, {}, { clock, snapshots: cache });
  });
  after(async () => {
    await app.close();
    await t.dispose();
  });

  const get = (query: string, k = key) => app.inject({ url: `/v2/gex/levels?${query}`, headers: { 'x-api-key': k } });

  test('latest: spec shape, no optional block by default, snapshot meta', async () => {
    const { data, meta } = assertOk<Record<string, unknown>>(await get('symbol=BTCUSDT'));
    assert.deepEqual(Object.keys(data).sort(), ['all_expiry', 'odte', 'positioning']);
    const e = engine(chainAt(C), 'flow');
    assert.deepEqual(data, { all_expiry: e.all_expiry, odte: e.odte, positioning: 'flow' });
    for (const k of ['hvl', 'call_resistance', 'call_wall_2', 'call_wall_3', 'put_support', 'put_wall_2', 'put_wall_3'])
      assert.ok(k in (data.all_expiry as object), k);
    for (const k of ['hvl', 'call_resistance', 'put_support']) assert.ok(k in (data.odte as object), k);
    assert.equal(meta.symbol, 'BTCUSDT');
    assert.equal(meta.spot_price, SPOTS.C);
    assert.equal(meta.computed_at, iso(C));
    assert.equal(meta.freshness_seconds, 10);
    assert.deepEqual(meta.source, ['deribit', 'okx']);
    assert.equal('exchanges_filtered' in meta, false);
    assert.deepEqual(meta.extra, { positioning: { requested: 'flow', served: 'flow' } });
  });

  test('include=every engine block: numbers equal the pure engine on the same chain, both models', async () => {
    for (const model of ['flow', 'std'] as const) {
      const { data } = assertOk(await get(`symbol=BTCUSDT&positioning=${model}&include=${ALL}`));
      assert.deepEqual(data, engine(chainAt(C), model), model);
    }
  });

  test('include: only the requested blocks appear (each alone, duplicates and case tolerated)', async () => {
    const blockKey = {
      ranked: 'ranked',
      max_pain: 'max_pain',
      expected_move: 'expected_move',
      zones: 'gamma_flip_zones',
      spot: 'spot',
      candles: 'candles',
      profile: 'profile',
      by_strike: 'by_strike',
    } as const;
    for (const [inc, k] of Object.entries(blockKey)) {
      const { data } = assertOk<Record<string, unknown>>(await get(`symbol=BTCUSDT&include=${inc}`));
      assert.deepEqual(Object.keys(data).sort(), ['all_expiry', 'odte', 'positioning', k].sort(), inc);
    }
    const { data } = assertOk<Record<string, unknown>>(await get('symbol=BTCUSDT&include=SPOT,%20spot,,max_pain'));
    assert.deepEqual(Object.keys(data).sort(), ['all_expiry', 'max_pain', 'odte', 'positioning', 'spot']);
    assert.deepEqual(data.spot, { spot_price: SPOTS.C, perps_price: null });
    const bad = assertError(await get('symbol=BTCUSDT&include=ranked,walls'), 422, 'VALIDATION_ERROR');
    assert.equal((bad.error.details?.errors as { name: string }[])[0]?.name, 'include');
  });

  test('candles: 1-minute perp + spot candles of the closed minutes before the snapshot', async () => {
    const { data } = assertOk<{ candles: unknown[] }>(await get('symbol=BTCUSDT&include=candles'));
    assert.deepEqual(data.candles, [
      { datetime: iso(M1), open: 100_000, high: 100_200, low: 99_900, close: 100_100, volume: 6 },
      { datetime: iso(M2), open: 100_300, high: 100_300, low: 100_300, close: 100_300, volume: 3 },
    ]);
  });

  test('exchanges: sub-chain re-aggregation equals the engine; unknown names ignored; all-invalid = every venue', async () => {
    const okx = assertOk(await get(`symbol=BTCUSDT&exchanges=OKX,nowhere&include=${ALL}`));
    assert.deepEqual(okx.data, engine(only(chainAt(C), ['okx']), 'flow'));
    assert.deepEqual(okx.meta.exchanges_filtered, ['okx']);
    assert.deepEqual(okx.meta.source, ['okx']);
    // okx has no measured inventory: flow falls back to std for this selection.
    assert.deepEqual((okx.meta.extra as { positioning: unknown }).positioning, {
      requested: 'flow',
      served: 'std',
      fallback_reason: 'no_measured_inventory',
    });

    const deribit = assertOk(await get(`symbol=BTCUSDT&exchanges=deribit&include=${ALL}`));
    assert.deepEqual(deribit.data, engine(only(chainAt(C), ['deribit']), 'flow'));
    assert.equal((deribit.data as { positioning: string }).positioning, 'flow');

    const invalid = assertOk(await get(`symbol=BTCUSDT&exchanges=kraken,,ftx&include=${ALL}`));
    assert.deepEqual(invalid.data, engine(chainAt(C), 'flow'));
    assert.deepEqual(invalid.meta.exchanges_filtered, [...VENUES]);
    assert.deepEqual(invalid.meta.source, ['deribit', 'okx']);
  });

  test('exchanges: a venue without contracts contributes zero', async () => {
    const both = assertOk(await get(`symbol=BTCUSDT&exchanges=okx,bybit&include=${ALL}`));
    assert.deepEqual(both.data, engine(only(chainAt(C), ['okx']), 'flow'));
    assert.deepEqual(both.meta.exchanges_filtered, ['bybit', 'okx']);
    assert.deepEqual(both.meta.source, ['okx']);
    const none = assertOk<{ all_expiry: Record<string, unknown>; max_pain: unknown; ranked: { all_expiry_top_10: unknown[] } }>(
      await get(`symbol=BTCUSDT&exchanges=bybit&include=${ALL}`),
    );
    assert.deepEqual(none.data, engine(only(chainAt(C), []), 'flow'));
    assert.equal(none.data.all_expiry.net_gex, 0);
    assert.equal(none.data.all_expiry.call_resistance, null);
    assert.equal(none.data.max_pain, null);
    assert.deepEqual(none.data.ranked.all_expiry_top_10, []);
    assert.deepEqual(none.meta.source, []);
    assert.deepEqual(none.meta.exchanges_filtered, ['bybit']);
  });

  test('positioning: SOLUSDT flow falls back to std (reason reported); std on request; bad value → 422', async () => {
    const sol = assertOk<{ positioning: string }>(await get(`symbol=SOLUSDT&include=${ALL}`));
    assert.deepEqual(sol.data, engine(solChain(), 'std'));
    assert.deepEqual((sol.meta.extra as { positioning: unknown }).positioning, {
      requested: 'flow',
      served: 'std',
      fallback_reason: 'flow_not_available_for_symbol',
    });
    const std = assertOk(await get('symbol=BTCUSDT&positioning=std'));
    assert.deepEqual((std.meta.extra as { positioning: unknown }).positioning, { requested: 'std', served: 'std' });
    assertError(await get('symbol=BTCUSDT&positioning=dealer'), 422, 'VALIDATION_ERROR');
  });

  test('symbol rules: no snapshot → 404; unknown or missing symbol → 422', async () => {
    assertError(await get('symbol=ETHUSDT'), 404, 'NOT_FOUND');
    assertError(await get('symbol=DOGEUSDT'), 422, 'VALIDATION_ERROR');
    assertError(await get(''), 422, 'VALIDATION_ERROR');
    assertError(await app.inject({ url: '/v2/gex/levels?symbol=BTCUSDT' }), 401, 'UNAUTHORIZED');
  });

  test('as_of: exact instant, between snapshots (never after), before the first → 404, future → 422, bad → 422', async () => {
    const exact = assertOk(await get(`symbol=BTCUSDT&as_of=${iso(A)}&include=${ALL}`));
    assert.deepEqual(exact.data, engine(chainAt(A), 'flow'));
    assert.deepEqual((exact.meta.extra as { as_of: unknown }).as_of, { requested: iso(A), snapshot_at: iso(A), lag_seconds: 0 });
    assert.equal(exact.meta.computed_at, iso(A));
    assert.equal(exact.meta.spot_price, SPOTS.A);
    assert.equal(exact.meta.history_depth_enforced, false);

    const between = assertOk(await get(`symbol=BTCUSDT&as_of=${encodeURIComponent(iso(B - 1))}`));
    assert.deepEqual((between.meta.extra as { as_of: unknown }).as_of, { requested: iso(B - 1), snapshot_at: iso(A), lag_seconds: 29.999 });
    const offset = new Date(B + 5_000 + 2 * 3600_000).toISOString().replace('Z', '+02:00');
    const tz = assertOk(await get(`symbol=BTCUSDT&as_of=${encodeURIComponent(offset)}`));
    assert.deepEqual((tz.meta.extra as { as_of: unknown }).as_of, { requested: iso(B + 5_000), snapshot_at: iso(B), lag_seconds: 5 });

    assertError(await get(`symbol=BTCUSDT&as_of=${iso(A - 1)}`), 404, 'NOT_FOUND');
    const future = assertError(await get(`symbol=BTCUSDT&as_of=${iso(clock() + 1)}`), 422, 'VALIDATION_ERROR');
    assert.equal((future.error.details?.errors as { name: string }[])[0]?.name, 'as_of');
    for (const bad of ['yesterday', '2026-02-30T00:00:00Z', '2026-01-01T00:00:00', '2026-01-01', String(A), '2026-01-01T24:00:00Z']) {
      assertError(await get(`symbol=BTCUSDT&as_of=${encodeURIComponent(bad)}`), 422, 'VALIDATION_ERROR');
    }
  });

  test('as_of with a venue filter: re-aggregated from the stored rows of that instant, equal to the engine', async () => {
    for (const model of ['flow', 'std'] as const) {
      for (const venues of [['deribit'], ['okx'], ['deribit', 'okx'], ['bybit']]) {
        const r = assertOk(
          await get(`symbol=BTCUSDT&as_of=${iso(A + 5)}&positioning=${model}&exchanges=${venues.join(',')}&include=${ALL}`),
        );
        assert.deepEqual(r.data, engine(only(chainAt(A), venues), model), `${model} ${venues.join(',')}`);
        assert.equal(r.meta.computed_at, iso(A));
      }
    }
    const sol = assertOk(await get(`symbol=SOLUSDT&as_of=${iso(C)}&exchanges=bybit&include=${ALL}`));
    assert.deepEqual(sol.data, engine(only(solChain(), ['bybit']), 'std'));
  });

  test('as_of: bounded by the plan window (evaluation keys enforced, others reported)', async () => {
    clock.set(C + 31 * DAY); // starter window (30 d) now starts at C + 1 d: A and C are beyond it
    try {
      const evalKey = await userWithKey(t.store, { userId: 'eval', plan: 'terminal_yearly', evaluation: true });
      const paidKey = await userWithKey(t.store, { userId: 'paid', plan: 'terminal_yearly' });
      const unlimitedEvalKey = await userWithKey(t.store, { userId: 'eval-unlimited', plan: 'enterprise', evaluation: true });
      await app.gex.accounts.refresh();
      const floor = clock() - 30 * DAY;
      const enforced = assertOk(await get(`symbol=BTCUSDT&as_of=${iso(A)}`, evalKey));
      assert.equal(enforced.meta.history_depth_enforced, true);
      const extra = enforced.meta.extra as { history_clamp: Record<string, unknown>; as_of: Record<string, unknown> };
      assert.deepEqual(extra.history_clamp, {
        requested_from: iso(A),
        requested_to: iso(A),
        served_from: iso(floor),
        served_to: iso(floor),
        enforced: true,
        history_days: 30,
      });
      assert.deepEqual(extra.as_of, { requested: iso(A), snapshot_at: iso(C), lag_seconds: (floor - C) / 1000 });
      const reported = assertOk(await get(`symbol=BTCUSDT&as_of=${iso(A)}`, paidKey));
      assert.equal(reported.meta.history_depth_enforced, false);
      const r = reported.meta.extra as { history_clamp: { enforced: boolean }; as_of: { snapshot_at: string } };
      assert.equal(r.history_clamp.enforced, false);
      assert.equal(r.as_of.snapshot_at, iso(A));
      const inside = assertOk(await get(`symbol=BTCUSDT&as_of=${iso(clock() - DAY)}`, evalKey));
      assert.equal((inside.meta.extra as Record<string, unknown>).history_clamp, undefined);
      // Unlimited history (enterprise, HISTORY_DAYS_ENTERPRISE=unlimited): never clamped nor reported, evaluation or not.
      for (const k of [key, unlimitedEvalKey]) {
        const u = assertOk(await get(`symbol=BTCUSDT&as_of=${iso(A)}`, k));
        const e = u.meta.extra as { history_clamp?: unknown; as_of: { snapshot_at: string } };
        assert.equal(e.history_clamp, undefined);
        assert.equal(e.as_of.snapshot_at, iso(A));
      }
    } finally {
      clock.set(C + 10_000);
    }
  });

  test('production path (pre-serialized, RESPONSE_VALIDATION off) sends the same envelope as the validated path', async () => {
    const prod = await testApp(t.store, { responseValidation: false }, { clock, snapshots: app.gex.snapshots ?? undefined });
    try {
      for (const q of [
        `symbol=BTCUSDT&include=${ALL},candles`,
        'symbol=BTCUSDT&exchanges=okx,bybit',
        `symbol=BTCUSDT&as_of=${iso(B)}&exchanges=deribit`,
        'symbol=SOLUSDT',
      ]) {
        const a = await get(q);
        const b = await prod.inject({ url: `/v2/gex/levels?${q}`, headers: { 'x-api-key': key } });
        assert.equal(b.statusCode, 200);
        assert.match(String(b.headers['content-type']), /^application\/json/);
        const strip = (body: string) => {
          const { meta, ...rest } = JSON.parse(body) as { meta: Record<string, unknown> };
          const { timestamp: _t, request_id: _r, rate_limit: _l, ...m } = meta;
          return { ...rest, meta: m };
        };
        assert.deepEqual(strip(b.body), strip(a.body), q);
      }
      for (const p of ['/v2/gex/strike-expiry-heatmap?symbol=BTCUSDT', '/v2/gex/gamma-flow?symbol=BTCUSDT']) {
        const b = await prod.inject({ url: p, headers: { 'x-api-key': key } });
        assertOk(b);
      }
    } finally {
      await prod.close();
    }
  });
});
