import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '#clickhouse/store.ts';
import { prepareChain } from '#processors/analytics/gex.ts';
import { greekExposures } from '#processors/analytics/greeks-data.ts';
import { greekSurfaces, surface3d } from '#processors/analytics/greek-surfaces.ts';
import type { ChainSnapshot, DealerModel } from '#processors/analytics/types.ts';
import { E1, E2, marketEvents } from '#processors/snapshots/testing/chain-fixture.ts';
import { indexPrice } from '#processors/snapshots/testing/events.ts';
import { storeEvents } from '#processors/snapshots/testing/store-events.ts';
import { SnapshotCache } from '../gex/snapshot-cache.ts';
import { assertError, assertOk } from '../testing/assertions.ts';
import { A, B, C, chainAt, seedGex } from '../testing/gex-fixture.ts';
import { migratedStore, testApp, testClock, userWithKey } from '../testing/harness.ts';
import type { ApiInstance } from '../types.ts';
import { chainFileRows } from '#processors/analytics/chain-quotes.ts';
import { smileView, termStructureView } from './iv-views.ts';

const iso = (ms: number): string => new Date(ms).toISOString();
const root = new URL('../../', import.meta.url).pathname;
const json = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

function engine(
  chain: ChainSnapshot,
  greek: 'gamma' | 'vanna' | 'charm' | 'delta',
  model: DealerModel,
  venues?: readonly string[],
  breakdown = false,
) {
  const open = prepareChain(chain).open.filter((i) => venues === undefined || venues.includes(i.venue));
  return { symbol: chain.symbol, now: chain.now, spot: chain.spot, open, greek, model, breakdown };
}

/** The chain files of this file's tests, deleted when they are done. */
const chainDir = mkdtempSync(join(tmpdir(), 'gex-greeks-'));
after(() => rmSync(chainDir, { recursive: true, force: true }));
let chainFiles = 0;

/** The chain as a `gex levels --chain` file. */
function chainFile(chain: ChainSnapshot): string {
  const file = join(chainDir, `chain-${++chainFiles}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      symbol: chain.symbol,
      now: iso(chain.now),
      spot: chain.spot,
      perp_price: chain.perpPrice,
      instruments: chain.instruments.map((i) => ({
        venue: i.venue,
        strike: i.strike,
        expiry: iso(i.expiry),
        type: i.type,
        open_interest: i.openInterest,
        mark_iv: i.markIv,
        forward: i.forward,
        ...(i.dealerInventory !== undefined ? { dealer_inventory: i.dealerInventory } : {}),
      })),
    }),
  );
  return file;
}

describe('/v2/options/greeks routes on a real embedded store', () => {
  let t: { store: Store; dispose(): Promise<void> };
  let app: ApiInstance;
  let key: string;
  const clock = testClock(C + 10_000);

  before(async () => {
    t = await migratedStore();
    await seedGex(t.store);
    // The raw writer's part of the market the snapshot processor saw (seedGex feeds it to memory only).
    await storeEvents(t.store, [
      ...marketEvents(),
      { type: 'index', event: indexPrice('deribit', 100_500, B - 1000) },
      { type: 'index', event: indexPrice('okx', 100_600, B - 1000) },
      { type: 'index', event: indexPrice('deribit', 99_500, C - 1000) },
      { type: 'index', event: indexPrice('okx', 99_600, C - 1000) },
    ]);
    const cache = new SnapshotCache(t.store, { pollMs: 0 });
    await cache.refresh();
    key = await userWithKey(t.store, { userId: 'greeks', plan: 'enterprise' });
    app = await testApp(t.store, {}, { clock, snapshots: cache });
  });
  after(async () => {
    await app.close();
    await t.dispose();
  });
  const get = (path: string) => app.inject({ url: path, headers: { 'x-api-key': key } });

  test('greeks/{greek}: the engine on the latest snapshot chain, both models, envelope and meta', async () => {
    for (const model of ['flow', 'std'] as const) {
      for (const greek of ['gamma', 'vanna', 'charm', 'delta'] as const) {
        const { data, meta } = assertOk(await get(`/v2/options/greeks/${greek}?symbol=BTCUSDT&positioning=${model}`));
        assert.deepEqual(data, json(greekExposures(engine(chainAt(C), greek, model))), `${greek} ${model}`);
        assert.equal(meta.computed_at, iso(C));
        assert.equal(meta.spot_price, chainAt(C).spot);
        assert.deepEqual((meta.extra as { positioning: unknown }).positioning, { requested: model, served: model });
      }
    }
    const g = assertOk<{ by_strike: unknown[]; by_expiry: unknown[]; total: number }>(await get('/v2/options/greeks/gamma?symbol=BTCUSDT'));
    assert.ok(g.data.by_strike.length > 0 && g.data.by_expiry.length === 2 && g.data.total !== 0);
  });

  test('CLI `gex greeks --chain` prints the route data for the same chain', async () => {
    const file = chainFile(chainAt(C));
    for (const [greek, model] of [
      ['vanna', 'flow'],
      ['gamma', 'std'],
    ] as const) {
      const r = spawnSync(
        process.execPath,
        ['--import', 'tsx', 'app/cli/main.ts', 'greeks', '--chain', file, '--greek', greek, '--model', model],
        { cwd: root, encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'warn' } },
      );
      assert.equal(r.status, 0, r.stderr);
      const route = assertOk(await get(`/v2/options/greeks/${greek}?symbol=BTCUSDT&positioning=${model}`));
      assert.deepEqual(JSON.parse(r.stdout), route.data);
    }
  });

  test('exchanges, include=exchange_breakdown, expiry filter; 404 for an expiry not listed', async () => {
    const { data, meta } = assertOk(
      await get('/v2/options/greeks/vanna?symbol=BTCUSDT&positioning=std&exchanges=okx,nope&include=exchange_breakdown'),
    );
    assert.deepEqual(data, json(greekExposures(engine(chainAt(C), 'vanna', 'std', ['okx'], true))));
    assert.deepEqual(meta.exchanges_filtered, ['okx']);
    const day = iso(E1).slice(0, 10);
    const one = assertOk<{ by_expiry: { expiry: string }[] }>(await get(`/v2/options/greeks/gamma?symbol=BTCUSDT&expiry=${day}`));
    assert.deepEqual(
      one.data.by_expiry.map((e) => e.expiry),
      [iso(E1)],
    );
    assertError(await get('/v2/options/greeks/gamma?symbol=BTCUSDT&expiry=2001-01-01'), 404, 'NOT_FOUND');
    assert.notEqual(E1, E2);
  });

  test('surfaces and 3-D surface (greek and IV) equal the engine', async () => {
    const s = assertOk(await get('/v2/options/greeks/surfaces/charm?symbol=BTCUSDT&include=exchange_breakdown'));
    assert.deepEqual(s.data, json(greekSurfaces(engine(chainAt(C), 'charm', 'flow', undefined, true))));
    const g = assertOk(await get('/v2/options/greeks/3d/surface?symbol=BTCUSDT&positioning=std'));
    assert.deepEqual(g.data, json(surface3d({ ...engine(chainAt(C), 'gamma', 'std'), metric: 'gamma' })));
    const iv = assertOk<{ positioning: null; values: (number | null)[][] }>(
      await get('/v2/options/greeks/3d/surface?symbol=BTCUSDT&metric=iv'),
    );
    assert.equal(iv.data.positioning, null);
    assert.ok(iv.data.values.flat().some((v) => v !== null && v > 0));
  });

  test('as_of: newest snapshot at or before, never after; identical bytes twice; 404 before the first; 422 details', async () => {
    const url = `/v2/options/greeks/gamma?symbol=BTCUSDT&positioning=flow&as_of=${iso(C - 1)}`;
    const first = await get(url);
    const r = assertOk(first);
    assert.deepEqual(r.data, json(greekExposures(engine(chainAt(B), 'gamma', 'flow'))));
    assert.deepEqual((r.meta.extra as { as_of: unknown }).as_of, { requested: iso(C - 1), snapshot_at: iso(B), lag_seconds: 29.999 });
    assert.equal(JSON.stringify((await get(url)).json<{ data: unknown }>().data), JSON.stringify(first.json<{ data: unknown }>().data));
    const atA = assertOk(await get(`/v2/options/greeks/delta?symbol=BTCUSDT&as_of=${iso(A)}`));
    assert.equal(atA.meta.computed_at, iso(A));
    assertError(await get(`/v2/options/greeks/gamma?symbol=BTCUSDT&as_of=${iso(A - 1)}`), 404, 'NOT_FOUND');
    assertError(await get('/v2/options/greeks/gamma?symbol=ETHUSDT'), 404, 'NOT_FOUND');
    for (const bad of [
      '/v2/options/greeks/rho?symbol=BTCUSDT',
      '/v2/options/greeks/gamma?symbol=BTCUSDT&positioning=naive',
      '/v2/options/greeks/gamma?symbol=BTCUSDT&include=ranked',
      '/v2/options/greeks/gamma?symbol=BTCUSDT&expiry=soon',
      `/v2/options/greeks/gamma?symbol=BTCUSDT&as_of=${iso(clock() + 1000)}`,
      '/v2/options/greeks/surfaces/speed?symbol=BTCUSDT',
      '/v2/options/greeks/3d/surface?symbol=BTCUSDT&metric=rho',
      '/v2/options/greeks/gamma?symbol=DOGEUSDT',
      '/v2/options/greeks/%ff%fe?symbol=BTCUSDT',
    ]) {
      const e = assertError(await get(bad), 422, 'VALIDATION_ERROR');
      assert.ok(Array.isArray((e.error.details as { errors: unknown[] }).errors), bad);
    }
  });

  test('IV smile and term structure: the pure smile of the stored chain; CLI `gex smile --chain` prints the same data', async () => {
    const smile = assertOk<{
      expiries: { expiry: string; atm_iv: number | null; points: { type: string; strike: number }[]; venues?: unknown[] }[];
    }>(await get('/v2/options/iv/smile?symbol=BTCUSDT&include=venues'));
    const rows = chainFileRows(chainAt(C));
    assert.deepEqual(smile.data, json(smileView({ symbol: 'BTCUSDT', t: C, spot: chainAt(C).spot, rows }, true)));
    assert.deepEqual(
      smile.data.expiries.map((e) => e.expiry),
      [iso(E1), iso(E2)],
    );
    assert.ok(smile.data.expiries.every((e) => e.atm_iv !== null && e.venues !== undefined));
    const e2 = assertOk<{ expiries: { expiry: string }[] }>(
      await get(`/v2/options/iv/smile?symbol=BTCUSDT&expiry=${iso(E2).slice(0, 10)}`),
    );
    assert.deepEqual(
      e2.data.expiries.map((e) => e.expiry),
      [iso(E2)],
    );
    assertError(await get(`/v2/options/iv/smile?symbol=BTCUSDT&expiry=${iso(E2 + 86_400_000).slice(0, 10)}`), 404, 'NOT_FOUND');
    assertError(await get('/v2/options/iv/smile?symbol=BTCUSDT&include=wings'), 422, 'VALIDATION_ERROR');
    const term = assertOk<{ constant_maturity: { days: number; method: string | null }[] }>(
      await get('/v2/options/iv/term-structure?symbol=BTCUSDT'),
    );
    assert.deepEqual(term.data, json(termStructureView({ symbol: 'BTCUSDT', t: C, spot: chainAt(C).spot, rows })));
    assert.deepEqual(
      term.data.constant_maturity.map((p) => p.days),
      [1, 7, 30, 60, 90, 180],
    );
    const past = assertOk(await get(`/v2/options/iv/term-structure?symbol=BTCUSDT&as_of=${encodeURIComponent(iso(B - 1))}`));
    assert.equal(past.meta.computed_at, iso(A));
    const file = chainFile(chainAt(C));
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'app/cli/main.ts', 'smile', '--chain', file, '--per-venue'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, LOG_LEVEL: 'warn' },
    });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { smile: smile.data, term_structure: term.data });
  });
});
