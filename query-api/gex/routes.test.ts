import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '#clickhouse/store.ts';
import { computeLevelsFromChain } from '#processors/analytics/chain-file.ts';
import { maxPain } from '#processors/analytics/max-pain.ts';
import type { ChainSnapshot, DealerModel } from '#processors/analytics/types.ts';
import { SnapshotCache } from './snapshot-cache.ts';
import { E1, E2 } from '#processors/snapshots/testing/chain-fixture.ts';
import { assertError, assertOk } from '../testing/assertions.ts';
import { A, B, C, chainAt, solChain, SPOTS, seedGex } from '../testing/gex-fixture.ts';
import { header, migratedStore, testApp, testClock, userWithKey } from '../testing/harness.ts';
import type { ApiInstance } from '../types.ts';

const iso = (ms: number): string => new Date(ms).toISOString();
const only = (chain: ChainSnapshot, venues: readonly string[]): ChainSnapshot => ({
  ...chain,
  instruments: chain.instruments.filter((i) => venues.includes(i.venue)),
});
const netGex = (chain: ChainSnapshot, model: DealerModel): number => computeLevelsFromChain(chain, model).all_expiry.net_gex;

describe('GEX routes: gamma-flow, multi-symbol levels, max-pain, strike × expiry heatmap, health', () => {
  let t: { store: Store; dispose(): Promise<void> };
  let app: ApiInstance;
  let key: string;
  let cache: SnapshotCache;
  const clock = testClock(C + 10_000);

  before(async () => {
    t = await migratedStore();
    await seedGex(t.store);
    cache = new SnapshotCache(t.store, { pollMs: 0 });
    await cache.refresh();
    key = await userWithKey(t.store, { userId: 'u1', plan: 'enterprise' });
    app = await testApp(t.store, {}, { clock, snapshots: cache });
  });
  after(async () => {
    await app.close();
    await t.dispose();
  });

  const get = (path: string, k = key) => app.inject({ url: path, headers: { 'x-api-key': k } });

  test('gamma-flow: pct change × net GEX of the model that ran, cumulative; positioning fallback for SOL', async () => {
    for (const model of ['flow', 'std'] as const) {
      const { data, meta } = assertOk<{
        positioning: string;
        points: { ts: string; spot: number; price_change_pct: number; net_gex: number; increment: number; cumulative: number }[];
      }>(await get(`/v2/gex/gamma-flow?symbol=BTCUSDT&positioning=${model}`));
      const net = [netGex(chainAt(A), model), netGex(chainAt(B), model), netGex(chainAt(C), model)];
      const pctB = (SPOTS.B / SPOTS.A - 1) * 100;
      const pctC = (SPOTS.C / SPOTS.B - 1) * 100;
      const incB = pctB * (net[1] as number);
      const incC = pctC * (net[2] as number);
      assert.deepEqual(
        data.points.map((p) => [p.ts, p.spot, p.price_change_pct, p.net_gex, p.increment, p.cumulative]),
        [
          [iso(A), SPOTS.A, 0, net[0], 0, 0],
          [iso(B), SPOTS.B, pctB, net[1], incB, incB],
          [iso(C), SPOTS.C, pctC, net[2], incC, incB + incC],
        ],
      );
      assert.equal(data.positioning, model);
      assert.equal(meta.computed_at, iso(C));
      assert.deepEqual((meta.extra as { positioning: unknown }).positioning, { requested: model, served: model });
    }
    const sol = assertOk<{ positioning: string; points: unknown[] }>(await get('/v2/gex/gamma-flow?symbol=SOLUSDT'));
    assert.equal(sol.data.positioning, 'std');
    assert.equal(sol.data.points.length, 1);
    assert.deepEqual((sol.meta.extra as { positioning: unknown }).positioning, {
      requested: 'flow',
      served: 'std',
      fallback_reason: 'flow_not_available_for_symbol',
    });
    assertError(await get('/v2/gex/gamma-flow?symbol=ETHUSDT'), 404, 'NOT_FOUND');
  });

  test('gamma-flow as_of: never after the instant; before the first → 404; future → 422', async () => {
    const r = assertOk<{ to: string; points: { ts: string; cumulative: number }[] }>(
      await get(`/v2/gex/gamma-flow?symbol=BTCUSDT&positioning=std&as_of=${iso(C - 1)}`),
    );
    assert.deepEqual(
      r.data.points.map((p) => p.ts),
      [iso(A), iso(B)],
    );
    assert.equal(r.data.to, iso(C - 1));
    assert.deepEqual((r.meta.extra as { as_of: unknown }).as_of, { requested: iso(C - 1), snapshot_at: iso(B), lag_seconds: 29.999 });
    assertError(await get(`/v2/gex/gamma-flow?symbol=BTCUSDT&as_of=${iso(A - 1)}`), 404, 'NOT_FOUND');
    assertError(await get(`/v2/gex/gamma-flow?symbol=BTCUSDT&as_of=${iso(clock() + 1000)}`), 422, 'VALIDATION_ERROR');
  });

  test('gamma-flow as_of: the 24 h window is clamped to the plan window (enforced for evaluation keys)', async () => {
    const DAY = 86_400_000;
    clock.set(C + 31 * DAY);
    try {
      const evalKey = await userWithKey(t.store, { userId: 'eval-flow', plan: 'terminal_yearly', evaluation: true });
      const paidKey = await userWithKey(t.store, { userId: 'paid-flow', plan: 'terminal_yearly' });
      await app.gex.accounts.refresh();
      const floor = clock() - 30 * DAY;
      const enforced = assertOk<{ from: string; to: string; points: unknown[] }>(
        await get(`/v2/gex/gamma-flow?symbol=BTCUSDT&as_of=${iso(C)}`, evalKey),
      );
      assert.deepEqual([enforced.data.from, enforced.data.to, enforced.data.points.length], [iso(floor), iso(floor), 0]);
      assert.equal(enforced.meta.history_depth_enforced, true);
      assert.deepEqual((enforced.meta.extra as { history_clamp: unknown }).history_clamp, {
        requested_from: iso(C - DAY),
        requested_to: iso(C),
        served_from: iso(floor),
        served_to: iso(floor),
        enforced: true,
        history_days: 30,
      });
      const reported = assertOk<{ points: unknown[] }>(await get(`/v2/gex/gamma-flow?symbol=BTCUSDT&as_of=${iso(C)}`, paidKey));
      assert.equal(reported.data.points.length, 3);
      assert.equal((reported.meta.extra as { history_clamp: { enforced: boolean } }).history_clamp.enforced, false);
    } finally {
      clock.set(C + 10_000);
    }
  });

  test('multi: served / missing / invalid, per-symbol entries equal the single route, one rate-limit charge', async () => {
    const std = await userWithKey(t.store, { userId: 'multi', plan: 'api_monthly' });
    await app.gex.accounts.refresh();
    const res = await get(
      '/v2/multi/gex/levels?symbols=BTCUSDT,ETHUSDT,SOLUSDT,DOGEUSDT,BTCUSDT,%20&include=ranked,max_pain,expected_move,zones',
      std,
    );
    const { data, meta } = assertOk<{
      entries: { symbol: string; computed_at: string; spot_price: number; source: string[]; levels: Record<string, unknown> }[];
      served: string[];
      missing: string[];
      invalid: string[];
    }>(res);
    assert.deepEqual([data.served, data.missing, data.invalid], [['BTCUSDT', 'SOLUSDT'], ['ETHUSDT'], ['DOGEUSDT']]);
    const strip = (chain: ChainSnapshot, model: DealerModel) => {
      const { diagnostics: _d, spot: _s, profile: _p, by_strike: _b, ...rest } = computeLevelsFromChain(chain, model);
      return JSON.parse(JSON.stringify(rest)) as unknown;
    };
    assert.deepEqual(
      data.entries.map((e) => e.symbol),
      ['BTCUSDT', 'SOLUSDT'],
    );
    assert.deepEqual(data.entries[0]?.levels, strip(chainAt(C), 'flow'));
    assert.deepEqual(data.entries[1]?.levels, strip(solChain(), 'std'));
    assert.deepEqual(
      [data.entries[0]?.computed_at, data.entries[0]?.spot_price, data.entries[0]?.source],
      [iso(C), SPOTS.C, ['deribit', 'okx']],
    );
    assert.deepEqual((meta.extra as { positioning: unknown }).positioning, {
      requested: 'flow',
      served: { BTCUSDT: 'flow', SOLUSDT: 'std' },
      fallback_reason: { SOLUSDT: 'flow_not_available_for_symbol' },
    });
    assert.equal(header(res, 'x-ratelimit-limit'), '60');
    assert.equal(header(res, 'x-ratelimit-remaining'), '59'); // one request, whatever the symbol count
    const next = await get('/v2/multi/gex/levels?symbols=BTCUSDT,SOLUSDT,ETHUSDT,HYPEUSDT', std);
    assert.equal(header(next, 'x-ratelimit-remaining'), '58');

    const filtered = assertOk<{ entries: { levels: Record<string, unknown> }[] }>(
      await get('/v2/multi/gex/levels?symbols=BTCUSDT&exchanges=okx'),
    );
    const {
      diagnostics: _d,
      ranked: _r,
      max_pain: _m,
      expected_move: _e,
      gamma_flip_zones: _z,
      spot: _s,
      profile: _p,
      by_strike: _b,
      ...bare
    } = computeLevelsFromChain(only(chainAt(C), ['okx']), 'flow');
    assert.deepEqual(filtered.data.entries[0]?.levels, JSON.parse(JSON.stringify(bare)));
    assert.deepEqual(filtered.meta.exchanges_filtered, ['okx']);
  });

  test('multi: at most 8 symbols, symbols required, include limited to its four blocks', async () => {
    const nine = 'A,B,C,D,E,F,G,H,I';
    const e = assertError(await get(`/v2/multi/gex/levels?symbols=${nine}`), 422, 'VALIDATION_ERROR');
    assert.equal((e.error.details?.errors as { name: string }[])[0]?.name, 'symbols');
    assertOk(await get('/v2/multi/gex/levels?symbols=A,B,C,D,E,F,G,BTCUSDT'));
    assertError(await get('/v2/multi/gex/levels'), 422, 'VALIDATION_ERROR');
    assertError(await get('/v2/multi/gex/levels?symbols=,,'), 422, 'VALIDATION_ERROR');
    assertError(await get('/v2/multi/gex/levels?symbols=BTCUSDT&include=candles'), 422, 'VALIDATION_ERROR');
    assertError(await get('/v2/multi/gex/levels?symbols=BTCUSDT&include=spot'), 422, 'VALIDATION_ERROR');
  });

  test('max-pain: per expiry equal to the engine on the same open interest; expiry selection; venue filter', async () => {
    const { data, meta } = assertOk<{ expiries: { expiry: string; strike: number | null; value: number | null }[] }>(
      await get('/v2/gex/max-pain?symbol=BTCUSDT'),
    );
    const chain = chainAt(C);
    const expected = [E1, E2].map((e) => {
      const ins = chain.instruments.filter((i) => i.expiry === e);
      const strikes = [...new Set(ins.map((i) => i.strike))].sort((a, b) => a - b);
      const oi = (type: 'call' | 'put') =>
        strikes.map((k) => ins.filter((i) => i.strike === k && i.type === type).reduce((s, i) => s + i.openInterest, 0));
      const mp = maxPain(strikes, oi('call'), oi('put'));
      return { expiry: iso(e), strike: mp?.strike ?? null, value: mp?.value ?? null };
    });
    assert.deepEqual(data.expiries, expected);
    assert.deepEqual([meta.symbol, meta.computed_at, meta.source], ['BTCUSDT', iso(C), ['deribit', 'okx']]);
    const token = new Date(E2);
    const months = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
    const tok = `${token.getUTCDate()}${months[token.getUTCMonth()]}${String(token.getUTCFullYear() % 100).padStart(2, '0')}`;
    for (const e of [tok, iso(E2).slice(0, 10)]) {
      assert.deepEqual(
        assertOk<{ expiries: unknown[] }>(await get(`/v2/gex/max-pain?symbol=BTCUSDT&expiry=${e}`)).data.expiries,
        [expected[1]],
        e,
      );
    }
    assertError(await get(`/v2/gex/max-pain?symbol=BTCUSDT&expiry=${iso(E2 + 86_400_000).slice(0, 10)}`), 404, 'NOT_FOUND');
    assertError(await get('/v2/gex/max-pain?symbol=BTCUSDT&expiry=31FEB26'), 422, 'VALIDATION_ERROR');
    const okx = assertOk<{ expiries: unknown[] }>(await get('/v2/gex/max-pain?symbol=BTCUSDT&exchanges=okx,kraken'));
    assert.deepEqual(okx.data.expiries, [{ expiry: iso(E2), strike: 95_000, value: 0 }]);
    assert.deepEqual([okx.meta.source, okx.meta.exchanges_filtered], [['okx'], ['okx']]);
    assertError(await get('/v2/gex/max-pain?symbol=HYPEUSDT'), 404, 'NOT_FOUND');
  });

  test('max-pain and heatmap as_of: newest snapshot at or before (never after), engine numbers of that chain, identical bytes twice; 404 before the first, 422 in the future', async () => {
    const maxPainOf = (chain: ReturnType<typeof chainAt>): unknown[] =>
      [E1, E2].flatMap((e) => {
        const ins = chain.instruments.filter((i) => i.expiry === e);
        if (ins.length === 0) return [];
        const strikes = [...new Set(ins.map((i) => i.strike))].sort((a, b) => a - b);
        const oi = (type: 'call' | 'put') =>
          strikes.map((k) => ins.filter((i) => i.strike === k && i.type === type).reduce((s, i) => s + i.openInterest, 0));
        const mp = maxPain(strikes, oi('call'), oi('put'));
        return [{ expiry: iso(e), strike: mp?.strike ?? null, value: mp?.value ?? null }];
      });
    const url = `/v2/gex/max-pain?symbol=BTCUSDT&as_of=${encodeURIComponent(iso(B - 1))}`;
    const first = await get(url);
    const mp = assertOk<{ expiries: unknown[] }>(first);
    assert.deepEqual(mp.data.expiries, maxPainOf(chainAt(A)));
    assert.deepEqual(mp.meta.computed_at, iso(A));
    assert.deepEqual((mp.meta.extra as { as_of: unknown }).as_of, {
      requested: iso(B - 1),
      snapshot_at: iso(A),
      lag_seconds: (B - 1 - A) / 1000,
    });
    const dataBytes = (body: string): string => JSON.stringify((JSON.parse(body) as { data: unknown }).data);
    assert.equal(dataBytes((await get(url)).body), dataBytes(first.body));
    const heat = assertOk<{ strikes: number[]; values: number[][] }>(
      await get(`/v2/gex/strike-expiry-heatmap?symbol=BTCUSDT&positioning=std&as_of=${iso(A)}`),
    );
    assert.equal(heat.meta.computed_at, iso(A));
    for (const r of computeLevelsFromChain(chainAt(A), 'std').ranked?.all_expiry_top_10 ?? []) {
      const j = heat.data.strikes.indexOf(r.strike);
      const sum = heat.data.values.reduce((acc, line) => acc + (line[j] ?? 0), 0);
      assert.ok(Math.abs(sum - r.net_gex) <= 1e-9 * Math.abs(r.net_gex), `${r.strike}: ${sum} vs ${r.net_gex}`);
    }
    for (const path of ['/v2/gex/max-pain', '/v2/gex/strike-expiry-heatmap']) {
      assertError(await get(`${path}?symbol=BTCUSDT&as_of=${iso(A - 1)}`), 404, 'NOT_FOUND');
      const future = assertError(await get(`${path}?symbol=BTCUSDT&as_of=${iso(clock() + 1_000)}`), 422, 'VALIDATION_ERROR');
      assert.equal((future.error.details?.errors as { name: string }[])[0]?.name, 'as_of');
    }
  });

  test('strike × expiry heatmap: column sums equal the engine net GEX per strike; venue filter; fallback', async () => {
    const { data, meta } = assertOk<{ positioning: string; strikes: number[]; expiries: string[]; values: number[][] }>(
      await get('/v2/gex/strike-expiry-heatmap?symbol=BTCUSDT&positioning=std'),
    );
    assert.deepEqual(data.expiries, [iso(E1), iso(E2)]);
    assert.deepEqual(data.strikes, [95_000, 100_000, 105_000, 110_000]);
    assert.equal(data.values.length, 2);
    const ranked = computeLevelsFromChain(chainAt(C), 'std').ranked?.all_expiry_top_10 ?? [];
    for (const r of ranked) {
      const j = data.strikes.indexOf(r.strike);
      const sum = data.values.reduce((acc, line) => acc + (line[j] ?? 0), 0);
      assert.ok(Math.abs(sum - r.net_gex) <= 1e-9 * Math.abs(r.net_gex), `${r.strike}: ${sum} vs ${r.net_gex}`);
    }
    assert.deepEqual((meta.extra as { positioning: unknown }).positioning, { requested: 'std', served: 'std' });
    const okx = assertOk<{ positioning: string; strikes: number[]; expiries: string[] }>(
      await get('/v2/gex/strike-expiry-heatmap?symbol=BTCUSDT&exchanges=okx'),
    );
    assert.equal(okx.data.positioning, 'std');
    assert.deepEqual(okx.data.expiries, [iso(E2)]);
    assert.deepEqual(okx.meta.exchanges_filtered, ['okx']);
    assertError(await get('/v2/gex/strike-expiry-heatmap?symbol=ETHUSDT'), 404, 'NOT_FOUND');
  });

  test('/v2/health: cache ok while the newest snapshot is younger than two intervals; the cache moves forward', async () => {
    const h = assertOk<{ status: string; cache: boolean; checks: { cache: { ok: boolean; age_seconds: number | null } } }>(
      await app.inject({ url: '/v2/health' }),
    );
    assert.deepEqual([h.data.status, h.data.cache, h.data.checks.cache.age_seconds], ['ok', true, 10]);
    clock.set(C + 61_000);
    try {
      const stale = assertOk<{ status: string; cache: boolean }>(await app.inject({ url: '/v2/health' }));
      assert.deepEqual([stale.data.status, stale.data.cache], ['degraded', false]);
    } finally {
      clock.set(C + 10_000);
    }
    const empty = new SnapshotCache(t.store, { pollMs: 0 });
    assert.deepEqual(empty.health(C), { ok: false, age_seconds: null });
    await empty.load('BTCUSDT', B);
    assert.equal(empty.get('BTCUSDT')?.meta.computed_at, B);
    await empty.load('BTCUSDT', A); // older: ignored
    assert.equal(empty.get('BTCUSDT')?.meta.computed_at, B);
    await empty.refresh();
    assert.deepEqual([empty.get('BTCUSDT')?.meta.computed_at, empty.get('SOLUSDT')?.meta.computed_at, empty.get('ETHUSDT')], [C, C, null]);
    assert.deepEqual(empty.health(C + 30_000), { ok: true, age_seconds: 30 });
  });

  test('the GEX routes are listed in /v2/endpoints and /v2/symbols', async () => {
    const { data } = assertOk<{ endpoints: { path: string }[] }>(await get('/v2/endpoints'));
    const paths = data.endpoints.map((e) => e.path);
    for (const p of ['/v2/gex/levels', '/v2/gex/gamma-flow', '/v2/multi/gex/levels', '/v2/gex/max-pain', '/v2/gex/strike-expiry-heatmap'])
      assert.ok(paths.includes(p), p);
  });
});
