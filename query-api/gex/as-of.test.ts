import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { migrate } from '#clickhouse/migrate.ts';
import { openTempStore } from '#clickhouse/testing/temp-store.ts';
import type { Store } from '#clickhouse/store.ts';
import { computeLevelsFromChain } from '#processors/analytics/chain-file.ts';
import { ALL_INCLUDES, STORED_INCLUDES } from '#processors/analytics/levels.ts';
import { latestSnapshot, levelsAsOf, restrictIncludes } from './as-of.ts';
import { runCycle } from '#processors/snapshots/cycle.ts';
import { gammaFlowSeries, maxPainPerExpiry, strikeExpiryHeatmap } from './readers.ts';
import { MarketState } from '#processors/snapshots/state.ts';
import { E1, E2, expectedChain, marketEvents, TICK, tradeEvents } from '#processors/snapshots/testing/chain-fixture.ts';
import { indexPrice } from '#processors/snapshots/testing/events.ts';
import { storeEvents } from '#processors/snapshots/testing/store-events.ts';

const CHAIN_OPTS = { tickerFreshnessMs: 300_000, priceFreshnessMs: 60_000 };
const A = TICK;
const B = TICK + 30_000;
const C = TICK + 60_000;

describe('point-in-time reads from stored snapshots', () => {
  let store: Store;
  let dispose: () => Promise<void>;

  before(async () => {
    ({ store, dispose } = await openTempStore());
    await migrate(store);
    await storeEvents(store, tradeEvents());
    const state = new MarketState();
    for (const e of marketEvents()) state.apply(e);
    const ctx = { store, bus: null, state, chain: CHAIN_OPTS };
    await runCycle(ctx, 'BTCUSDT', A, 'live'); // spot 100,050
    state.apply({ type: 'index', event: indexPrice('deribit', 100_500, B - 1000) });
    state.apply({ type: 'index', event: indexPrice('okx', 100_600, B - 1000) });
    await runCycle(ctx, 'BTCUSDT', B, 'live'); // spot 100,550
    state.apply({ type: 'index', event: indexPrice('deribit', 99_500, C - 1000) });
    state.apply({ type: 'index', event: indexPrice('okx', 99_600, C - 1000) });
    await runCycle(ctx, 'BTCUSDT', C, 'live'); // spot 99,550
  });
  after(async () => dispose());

  test('the newest snapshot at or before the instant, never after; exact equality; before the first → null', async () => {
    const at = async (ms: number): Promise<[number, number] | null> => {
      const r = await levelsAsOf(store, { symbol: 'BTCUSDT', asOfMs: ms, model: 'std' });
      return r === null ? null : [r.snapshotAt, r.lagSeconds];
    };
    assert.equal(await at(A - 1), null);
    assert.deepEqual(await at(A), [A, 0]);
    assert.deepEqual(await at(A + 29_999), [A, 29.999]);
    assert.deepEqual(await at(B), [B, 0]);
    assert.deepEqual(await at(B + 1), [B, 0.001]);
    assert.deepEqual(await at(C + 3_600_000), [C, 3600]);
    assert.equal(await levelsAsOf(store, { symbol: 'ETHUSDT', asOfMs: C, model: 'flow' }), null);
    assert.equal((await latestSnapshot(store, 'BTCUSDT'))?.meta.computed_at, C);
    const spots = [];
    for (const t of [A, B, C]) spots.push((await levelsAsOf(store, { symbol: 'BTCUSDT', asOfMs: t, model: 'std' }))?.spot);
    assert.deepEqual(spots, [100_050, 100_550, 99_550]);
  });

  test('the stored snapshot read back at its instant equals the pure engine on the same chain (every block, flow model)', async () => {
    const engine = computeLevelsFromChain(expectedChain(), 'flow');
    // The compact blocks come from the gex_levels row; profile and by_strike from the venue rows of that instant.
    const asOf = await levelsAsOf(store, { symbol: 'BTCUSDT', asOfMs: A, model: 'flow', include: STORED_INCLUDES });
    assert.deepEqual(asOf?.levels, restrictIncludes(engine, STORED_INCLUDES));
    assert.equal(asOf?.lagSeconds, 0);
    const full = await levelsAsOf(store, { symbol: 'BTCUSDT', asOfMs: A + 1, model: 'flow', include: ALL_INCLUDES });
    assert.deepEqual(full?.levels, engine);
    assert.equal(full?.levels.profile?.net_gex.length, 201);
    assert.equal(full?.snapshotAt, A);
    const profileOnly = await levelsAsOf(store, { symbol: 'BTCUSDT', asOfMs: A, model: 'flow', include: ['profile'] });
    assert.deepEqual(profileOnly?.levels, restrictIncludes(engine, ['profile']));
  });

  test('a venue subset re-aggregated from the stored rows equals the pure engine on that venue’s sub-chain', async () => {
    const chain = expectedChain();
    const okxOnly = { ...chain, instruments: chain.instruments.filter((i) => i.venue === 'okx') };
    for (const model of ['flow', 'std'] as const) {
      const r = await levelsAsOf(store, { symbol: 'BTCUSDT', asOfMs: A + 5, model, venues: ['OKX', 'nowhere'], include: ALL_INCLUDES });
      assert.deepEqual(r?.levels, computeLevelsFromChain(okxOnly, model));
      assert.equal(r?.levels.positioning, 'std'); // okx has no measured inventory: flow falls back to std
    }
    const all = await levelsAsOf(store, { symbol: 'BTCUSDT', asOfMs: A, model: 'flow', venues: ['nowhere'], include: ALL_INCLUDES });
    assert.deepEqual(all?.levels, computeLevelsFromChain(chain, 'flow')); // no known name → every venue
    assert.equal(all?.coverage, 825 / 2670);
    const deribit = await levelsAsOf(store, { symbol: 'BTCUSDT', asOfMs: A, model: 'flow', venues: ['deribit'] });
    assert.equal(deribit?.coverage, 825 / 2520);
  });

  test('gamma flow: pct change vs the previous snapshot × net GEX, cumulative sum; never after as_of', async () => {
    for (const model of ['flow', 'std'] as const) {
      const net = [];
      for (const t of [A, B, C])
        net.push((await levelsAsOf(store, { symbol: 'BTCUSDT', asOfMs: t, model }))?.levels.all_expiry.net_gex ?? Number.NaN);
      const pctB = (100_550 / 100_050 - 1) * 100;
      const pctC = (99_550 / 100_550 - 1) * 100;
      const incB = pctB * (net[1] as number);
      const incC = pctC * (net[2] as number);
      const s = await gammaFlowSeries(store, { symbol: 'BTCUSDT', model, fromMs: A, toMs: C + 1, nowMs: C + 10 });
      assert.equal(s.positioning, model);
      assert.deepEqual(
        s.points.map((p) => [p.t, p.spot, p.pct_change, p.net_gex, p.increment, p.cumulative]),
        [
          [A, 100_050, 0, net[0], 0, 0],
          [B, 100_550, pctB, net[1], incB, incB],
          [C, 99_550, pctC, net[2], incC, incB + incC],
        ],
      );
      const stored = await store.query<{ cumulative: number }>(
        'SELECT cumulative FROM gamma_flow WHERE symbol = {s:String} AND model = {m:String} ORDER BY computed_at',
        { s: 'BTCUSDT', m: model },
      );
      assert.deepEqual(
        stored.map((r) => r.cumulative),
        [0, incB, incB + incC],
      );
      const cut = await gammaFlowSeries(store, { symbol: 'BTCUSDT', model, fromMs: B, asOfMs: C - 1, nowMs: C + 10 });
      assert.deepEqual(
        cut.points.map((p) => [p.t, p.cumulative]),
        [[B, incB]],
      ); // window-relative cumulative
    }
  });

  test('max pain per expiry and the strike × expiry heatmap', async () => {
    const mp = await maxPainPerExpiry(store, { symbol: 'BTCUSDT', asOfMs: A });
    // E1: only the 100k strike (call 100, put 120) → 100k with payout 0. E2 (deribit + okx): strikes 95k/100k/
    // 105k/110k, calls 0/550/600/30, puts 870/400/0/0 → payout 0 at 100k (no call below, no put above).
    assert.deepEqual(mp?.expiries, [
      { expiry: E1, max_pain: { strike: 100_000, value: 0 } },
      { expiry: E2, max_pain: { strike: 100_000, value: 0 } },
    ]);
    const okx = await maxPainPerExpiry(store, { symbol: 'BTCUSDT', venues: ['okx'] }); // latest
    assert.equal(okx?.snapshotAt, C);
    // okx E2: calls 100k:50, 110k:30; puts 95k:70 → Pain(95k)=0+0=… calls below 95k none, puts above none → 0
    assert.deepEqual(okx?.expiries, [{ expiry: E2, max_pain: { strike: 95_000, value: 0 } }]);

    const h = await strikeExpiryHeatmap(store, { symbol: 'BTCUSDT', asOfMs: A, model: 'std' });
    assert.ok(h !== null);
    assert.deepEqual(h.expiries, [E1, E2]);
    assert.deepEqual(h.strikes, [95_000, 100_000, 105_000, 110_000]);
    const snap = await levelsAsOf(store, { symbol: 'BTCUSDT', asOfMs: A, model: 'std', include: ['ranked'] });
    // Column sums over expiries = the all-expiry net GEX per strike (ranked lists every non-zero strike here).
    for (const r of snap?.levels.ranked?.all_expiry_top_10 ?? []) {
      const j = h.strikes.indexOf(r.strike);
      const sum = h.net_gex.reduce((acc, line) => acc + (line[j] ?? 0), 0);
      assert.ok(Math.abs(sum - r.net_gex) <= 1e-9 * Math.abs(r.net_gex), `strike ${r.strike}: ${sum} vs ${r.net_gex}`);
    }
    // The 0DTE row equals the 0DTE block's net GEX at its only strike.
    assert.ok(Math.abs((h.net_gex[0]?.[1] ?? 0) - (snap?.levels.ranked?.odte_top_10[0]?.net_gex ?? Number.NaN)) < 1e-6);
    assert.deepEqual([h.net_gex[0]?.[0], h.net_gex[0]?.[2], h.net_gex[1]?.[3]], [0, 0, 0]); // nothing listed / no IV
    const flow = await strikeExpiryHeatmap(store, { symbol: 'BTCUSDT', asOfMs: A, model: 'flow', venues: ['okx'] });
    assert.equal(flow?.positioning, 'std');
  });
});
