import { test } from 'node:test';
import assert from 'node:assert/strict';
import { migrate } from '#clickhouse/migrate.ts';
import { openTempStore } from '#clickhouse/testing/temp-store.ts';
import { clipInventory } from '../analytics/dealer.ts';
import { inventoryAsOf, inventoryRows } from './inventory.ts';
import { inventoryStatsByVenue } from './inventory-stats.ts';
import { expectedChain, TICK, tradeEvents } from './testing/chain-fixture.ts';
import { storeEvents } from './testing/store-events.ts';

test('dealer inventory as of t1 and t2 from the stored trades: sign, expiry drop, redelivery dedup, nothing after asOf', async () => {
  const { store, dispose } = await openTempStore();
  try {
    await migrate(store);
    const trades = tradeEvents();
    await storeEvents(store, trades.slice(0, 4), 'a');
    await storeEvents(store, trades.slice(4), 'b'); // d4 redelivered in another part

    // t1 = tick − 90 min: only d3 (taker sells 900 of the 95k put → dealer +900) and d6 (taker buys 3 of the
    // contract that expires at tick − 60 min, still open at t1 → dealer −3).
    const t1 = TICK - 5_400_000;
    assert.deepEqual(
      [...(await inventoryAsOf(store, 'BTCUSDT', t1))],
      [
        ['deribit|BTC-E2-95000-P', 900],
        ['deribit|BTC-EXP-100000-C', -3],
      ],
    );
    // t2 = tick: 100k call −(30 − 10) = −20; 0DTE put −5 (d4 counted once); the expired contract is dropped;
    // d5 (tick + 1 s) is not in yet.
    assert.deepEqual(
      [...(await inventoryAsOf(store, 'BTCUSDT', TICK))],
      [
        ['deribit|BTC-E1-100000-P', -5],
        ['deribit|BTC-E2-100000-C', -20],
        ['deribit|BTC-E2-95000-P', 900],
      ],
    );
    const rows = await inventoryRows(store, 'BTCUSDT', TICK);
    assert.deepEqual(
      rows.map((r) => r.trades),
      [1, 2, 1],
    );
    // Exactly at a trade's ts it is included (ts <= asOf); 1 ms before it is not.
    assert.equal((await inventoryAsOf(store, 'BTCUSDT', TICK + 1_000)).get('deribit|BTC-E2-100000-C'), -27);
    assert.equal((await inventoryAsOf(store, 'BTCUSDT', TICK + 999)).get('deribit|BTC-E2-100000-C'), -20);
    // Other symbols have nothing.
    assert.equal((await inventoryAsOf(store, 'ETHUSDT', TICK)).size, 0);

    // Clipping to ±OI happens with the chain's OI: +900 on an OI of 800 counts as +800.
    assert.equal(clipInventory(900, 800), 800);
    const stats = inventoryStatsByVenue(expectedChain()).get('deribit');
    assert.deepEqual(stats, { inv_contracts: 3, inv_net: 775, inv_abs: 825, inv_unclipped_net: 875, oi_total: 2520 });
  } finally {
    await dispose();
  }
});
