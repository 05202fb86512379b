import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { migrate } from '#clickhouse/migrate.ts';
import { openTempStore } from '#clickhouse/testing/temp-store.ts';
import type { Store } from '#clickhouse/store.ts';
import { MemoryBus } from '#bus/memory-bus.ts';
import { ensureProductTopics } from '#bus/topics.ts';
import { avroCodec } from '#schemas/avro/codec.ts';
import { TOPICS } from '#schemas/events.ts';
import type { AnalyticsSnapshot } from '#schemas/events.ts';
import { computeLevelsFromChain } from '../analytics/chain-file.ts';
import { STORED_INCLUDES } from '../analytics/levels.ts';
import { buildVenueRows } from '../analytics/snapshot-row.ts';
import { computeSnapshot } from './compute-step.ts';
import { runCycle } from './cycle.ts';
import { levelRowsBetween, snapshotRecordsBetween } from './processor-reads.ts';
import { fromSnapshotRecord, type SnapshotRecord } from './snapshot-record.ts';
import { loadStateAsOf } from './rebuild.ts';
import { MarketState } from './state.ts';
import { expectedChain, marketEvents, TICK, tradeEvents } from './testing/chain-fixture.ts';
import { storeEvents } from './testing/store-events.ts';

const CHAIN_OPTS = { tickerFreshnessMs: 300_000, priceFreshnessMs: 60_000 };

describe('snapshot cycle on a hand-built market', () => {
  let store: Store;
  let dispose: () => Promise<void>;
  const bus = new MemoryBus();
  const state = new MarketState();

  before(async () => {
    ({ store, dispose } = await openTempStore());
    await migrate(store);
    await ensureProductTopics(bus, 2);
    await storeEvents(store, marketEvents());
    await storeEvents(store, tradeEvents().slice(0, 4), 'a');
    await storeEvents(store, tradeEvents().slice(4), 'b'); // the redelivered d4 lands in a second part
    for (const e of marketEvents()) state.apply(e);
  });
  after(async () => {
    await bus.close();
    await dispose();
  });

  test('stored rows, gex_levels and the published levels equal the pure engine on the same chain (both models)', async () => {
    const published: AnalyticsSnapshot[] = [];
    await bus.subscribe({
      groupId: 't',
      topics: [TOPICS.snapshot],
      eachBatch: async (b) => {
        for (const m of b.messages) published.push(avroCodec().decodeAs<AnalyticsSnapshot>('snapshot', m.value));
      },
    });
    const r = await runCycle({ store, bus, state, chain: CHAIN_OPTS }, 'BTCUSDT', TICK, 'live');
    assert.equal(r.kind, 'stored');
    const chain = expectedChain();
    // gex_levels and the published snapshot carry the compact blocks (profile and by_strike are computed on request).
    const flow = computeLevelsFromChain(chain, 'flow', STORED_INCLUDES);
    const std = computeLevelsFromChain(chain, 'std', STORED_INCLUDES);
    assert.equal(flow.positioning, 'flow');
    assert.deepEqual(JSON.parse(JSON.stringify(flow)), JSON.parse(JSON.stringify(flow))); // JSON-safe (no NaN)

    // rows: the engine's venue rows of the expected chain, plus inventory statistics written out by hand
    if (r.kind !== 'stored') return;
    const engineRows = buildVenueRows(chain);
    assert.deepEqual(
      r.rows.map((x) => x.venue),
      ['deribit', 'okx'],
    );
    for (const [i, row] of r.rows.entries()) {
      const {
        cell_expiry: _a,
        cell_strike: _b,
        cell_gex_std: _c,
        cell_gex_flow: _d,
        inv_contracts: _e,
        inv_net: _f,
        inv_abs: _g,
        inv_unclipped_net: _h,
        oi_total: _i,
        source: _j,
        ...venueRow
      } = row;
      assert.deepEqual(venueRow, engineRows[i]);
    }
    const [d, o] = r.rows;
    // deribit: clipped −20 + 800 (900 > OI 800) − 5 = 775; |·| 825; unclipped 875; OI 500+400+800+600+100+120
    assert.deepEqual([d?.inv_contracts, d?.inv_net, d?.inv_abs, d?.inv_unclipped_net, d?.oi_total], [3, 775, 825, 875, 2520]);
    assert.deepEqual([o?.inv_contracts, o?.inv_net, o?.oi_total, o?.has_inventory, o?.skipped_no_iv], [0, 0, 150, false, 1]);
    assert.equal(r.snapshot.coverage, 825 / 2670);

    // gex_levels payloads give exactly the pure numbers (query-api/gex/as-of.test.ts reads them back)
    const stored = await store.query<{
      model: string;
      positioning: string;
      payload: string;
      hvl: number | null;
      spot: number;
      perp_price: number;
    }>('SELECT model, positioning, payload, hvl, spot, perp_price FROM gex_levels ORDER BY model');
    assert.deepEqual(
      stored.map((s) => [s.model, s.positioning, s.spot, s.perp_price]),
      [
        ['flow', 'flow', 100_050, 100_200],
        ['std', 'std', 100_050, 100_200],
      ],
    );
    assert.deepEqual(JSON.parse(stored[0]?.payload ?? ''), JSON.parse(JSON.stringify(flow)));
    assert.deepEqual(JSON.parse(stored[1]?.payload ?? ''), JSON.parse(JSON.stringify(std)));
    assert.equal(stored[1]?.hvl, std.all_expiry.hvl);

    for (let i = 0; i < 100 && published.length === 0; i++) await new Promise((res) => setTimeout(res, 20));
    assert.equal(published.length, 1);
    assert.equal(published[0]?.computedAt, TICK);
    assert.deepEqual(JSON.parse(published[0]?.payload ?? '').levels.flow, JSON.parse(JSON.stringify(flow)));
  });

  test('re-running the tick stores nothing twice; the state rebuilt from the raw tables gives the same rows', async () => {
    await runCycle({ store, bus: null, state, chain: CHAIN_OPTS }, 'BTCUSDT', TICK, 'live');
    const counts = await store.query<{ t: string; n: string }>(
      "SELECT t, n FROM (SELECT 'snapshots' AS t, toString(count()) AS n FROM gex_snapshots UNION ALL SELECT 'levels' AS t, toString(count()) AS n FROM gex_levels UNION ALL SELECT 'flow' AS t, toString(count()) AS n FROM gamma_flow) ORDER BY t",
    );
    assert.deepEqual(counts, [
      { t: 'flow', n: '2' },
      { t: 'levels', n: '2' },
      { t: 'snapshots', n: '2' },
    ]);

    const rebuilt = (await loadStateAsOf(store, 'BTCUSDT', TICK, CHAIN_OPTS)).view('BTCUSDT');
    const fromStore = await computeSnapshot(store, 'BTCUSDT', TICK, rebuilt, CHAIN_OPTS, 'store');
    const fromMemory = await computeSnapshot(store, 'BTCUSDT', TICK, state.view('BTCUSDT'), CHAIN_OPTS, 'store');
    assert.equal(fromStore.kind, 'snapshot');
    assert.equal(fromMemory.kind, 'snapshot');
    if (fromStore.kind !== 'snapshot' || fromMemory.kind !== 'snapshot') return;
    assert.deepEqual(fromStore.rows, fromMemory.rows); // instrument order may differ; rows are canonical
  });

  test('the level rows of a range decode to the stored rows (no cells), one at a time, and give their size', async () => {
    const stored = await snapshotRecordsBetween(store, 'BTCUSDT', TICK - 1, TICK + 1);
    assert.equal(stored.length, 2, 'one row per venue at the tick');
    const rows = await levelRowsBetween(store, 'BTCUSDT', TICK - 1, TICK + 1);
    assert.deepEqual([rows.rows, [...rows.computedAt]], [2, [TICK, TICK]]);
    const noCells = { cell_expiry_ms: [], cell_strike: [], cell_gex_std: [], cell_gex_flow: [] };
    // Decoded in turn (the decoder reuses one buffer): each row still equals the stored one after the next is decoded.
    const decoded = [rows.row(0), rows.row(1)];
    for (const [i, r] of decoded.entries())
      assert.deepEqual(r, fromSnapshotRecord('BTCUSDT', { ...(stored[i] as SnapshotRecord), ...noCells }));
    // The size counts the packed levels as bytes (base64 decoded by the store), 200 for the rest of a row.
    assert.equal(
      rows.bytes,
      stored.reduce((n, r) => n + Buffer.from(r.levels_pack, 'base64').byteLength + 200, 0),
    );
    assert.throws(() => rows.row(2), RangeError);
    rows.release();
    const none = await levelRowsBetween(store, 'BTCUSDT', TICK + 1, TICK + 2);
    assert.deepEqual([none.rows, none.bytes], [0, 0]);
  });
});
