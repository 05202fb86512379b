import { test } from 'node:test';
import assert from 'node:assert/strict';
import { migrate } from '#clickhouse/migrate.ts';
import { openTempStore } from '#clickhouse/testing/temp-store.ts';
import { MemoryBus } from '#bus/memory-bus.ts';
import { ensureProductTopics } from '#bus/topics.ts';
import { computeLevelsFromChain } from '#processors/analytics/chain-file.ts';
import { ALL_INCLUDES } from '#processors/analytics/levels.ts';
import { runCycle } from '#processors/snapshots/cycle.ts';
import { SnapshotCache } from './snapshot-cache.ts';
import { MarketState } from '#processors/snapshots/state.ts';
import { expectedChain, marketEvents, TICK, tradeEvents } from '#processors/snapshots/testing/chain-fixture.ts';
import { indexPrice } from '#processors/snapshots/testing/events.ts';
import { storeEvents } from '#processors/snapshots/testing/store-events.ts';

const CHAIN_OPTS = { tickerFreshnessMs: 300_000, priceFreshnessMs: 60_000 };

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('SnapshotCache: refresh, announced snapshots from the bus, never backwards, health, levels equal to the engine', async () => {
  const { store, dispose } = await openTempStore();
  const bus = new MemoryBus({ clientId: 'cache-test' });
  const cache = new SnapshotCache(store, { pollMs: 0, bus, symbols: ['BTCUSDT', 'ETHUSDT'] });
  try {
    await migrate(store);
    await ensureProductTopics(bus, 1);
    await storeEvents(store, tradeEvents());
    const state = new MarketState();
    for (const e of marketEvents()) state.apply(e);
    const quiet = { store, bus: null, state, chain: CHAIN_OPTS };
    await runCycle(quiet, 'BTCUSDT', TICK, 'live');

    await cache.start(); // initial refresh from ClickHouse
    assert.equal(cache.get('BTCUSDT')?.meta.computed_at, TICK);
    assert.equal(cache.get('ETHUSDT'), null);
    assert.deepEqual(cache.levels('BTCUSDT', 'flow', undefined, ALL_INCLUDES)?.levels, computeLevelsFromChain(expectedChain(), 'flow'));
    assert.deepEqual(cache.health(TICK + 60_000), { ok: true, age_seconds: 60 });
    assert.deepEqual(cache.health(TICK + 60_001), { ok: false, age_seconds: 60 });

    // A cycle that publishes on analytics.snapshots.v1: the cache loads the announced snapshot without polling.
    state.apply({ type: 'index', event: indexPrice('deribit', 100_500, TICK + 29_000) });
    await runCycle({ ...quiet, bus }, 'BTCUSDT', TICK + 30_000, 'live');
    await until(() => cache.get('BTCUSDT')?.meta.computed_at === TICK + 30_000);
    assert.equal(cache.newestAt(), TICK + 30_000);

    // Never backwards: an older snapshot offered or announced is ignored.
    const cur = cache.get('BTCUSDT');
    assert.ok(cur !== null);
    assert.equal(cache.offer({ ...cur, meta: { ...cur.meta, computed_at: TICK } }), false);
    await cache.load('BTCUSDT', TICK);
    assert.equal(cache.get('BTCUSDT')?.meta.computed_at, TICK + 30_000);
    await cache.refresh();
    assert.equal(cache.get('BTCUSDT')?.meta.computed_at, TICK + 30_000);
  } finally {
    await cache.stop();
    await bus.close();
    await dispose();
  }
});
