import { test } from 'node:test';
import assert from 'node:assert/strict';
import { migrate } from '#clickhouse/migrate.ts';
import { openTempStore } from '#clickhouse/testing/temp-store.ts';
import { ALL_INCLUDES } from '#processors/analytics/levels.ts';
import { syntheticChain } from '#processors/analytics/testing/synthetic-chain.ts';
import { levelsAsOf, levelsOfSnapshot, snapshotAsOf } from './as-of.ts';
import { rowsFromChain } from '#processors/snapshots/compute-step.ts';
import { levelsOf } from '#processors/snapshots/levels-step.ts';
import { levelRowsAtOrBefore } from './snapshot-point-reads.ts';
import { SETTLE_MS, snapshotTimesOf, SnapshotTimes } from './snapshot-times.ts';
import { storeLevelsAndFlow, storeSnapshotRows } from '#processors/snapshots/write-step.ts';

const T0 = Math.floor((Date.now() - 3 * SETTLE_MS) / 30_000) * 30_000;
const TICKS = [T0, T0 + 30_000, T0 + 90_000]; // a missed tick at T0 + 60 s

const chainAt = (now: number, k: number) =>
  syntheticChain({
    symbol: 'BTCUSDT',
    now,
    spot: 97_000 + 100 * k,
    venues: ['deribit', 'okx', 'bybit'],
    perVenue: 120,
    seed: 7 + k,
    withInventory: true,
  });

test('snapshot-times: settled instants from the index equal the store path; unsettled ones are left to the store', async () => {
  const { store, dispose } = await openTempStore();
  try {
    await migrate(store);
    for (const [k, t] of TICKS.entries()) {
      const rows = rowsFromChain(chainAt(t, k), 'store');
      await storeSnapshotRows(store, 'BTCUSDT', t, rows);
      await storeLevelsAndFlow(store, levelsOf('BTCUSDT', t, rows), []);
    }
    let now = T0 + SETTLE_MS + 60_000; // horizon between the 2nd and 3rd tick
    const idx = new SnapshotTimes(store, () => now);
    assert.equal(idx.atOrBefore('BTCUSDT', T0 + 45_000), undefined); // loading
    await idx.ready('BTCUSDT');
    assert.equal(idx.atOrBefore('BTCUSDT', T0 - 1), null);
    assert.equal(idx.atOrBefore('BTCUSDT', T0), T0);
    assert.equal(idx.atOrBefore('BTCUSDT', T0 + 59_999), T0 + 30_000);
    assert.equal(idx.atOrBefore('BTCUSDT', T0 + 90_000), undefined); // after the horizon
    now += 2 * 3600_000; // the horizon moved: the index is extended
    idx.atOrBefore('BTCUSDT', T0);
    await idx.ready('BTCUSDT');
    assert.equal(idx.atOrBefore('BTCUSDT', T0 + 100_000), T0 + 90_000);

    const shared = snapshotTimesOf(store);
    shared.atOrBefore('BTCUSDT', T0);
    await shared.ready('BTCUSDT');
    for (const asOf of [T0 - 1, T0, T0 + 70_000, T0 + 90_000, T0 + 3_600_000]) {
      for (const model of ['flow', 'std'] as const) {
        const venues = ['okx', 'bybit'];
        const viaIndex = await levelsAsOf(store, { symbol: 'BTCUSDT', asOfMs: asOf, model, venues, include: ALL_INCLUDES });
        const viaStore = await levelRowsAtOrBefore(store, 'BTCUSDT', asOf, venues);
        const snap = await snapshotAsOf(store, 'BTCUSDT', asOf);
        assert.equal(viaIndex?.snapshotAt ?? null, viaStore?.t ?? null);
        assert.equal(viaIndex?.snapshotAt ?? null, snap?.meta.computed_at ?? null);
        if (snap !== null) assert.deepEqual(viaIndex?.levels, levelsOfSnapshot(snap, model, venues, ALL_INCLUDES).levels);
      }
    }
  } finally {
    await dispose();
  }
});
