/**
 * The snapshot announcement is best effort: a bus that refuses it, or does not take it within ANNOUNCE_WAIT_MS (a
 * broker outage), leaves the cycle stored and counted instead of failing it (a failed cycle was redone 3 times, each
 * waiting out the producer's retries, and the tick loop fell minutes behind during an outage).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { migrate } from '#clickhouse/migrate.ts';
import { openTempStore } from '#clickhouse/testing/temp-store.ts';
import type { Store } from '#clickhouse/store.ts';
import { MemoryBus } from '#bus/memory-bus.ts';
import { ensureProductTopics } from '#bus/topics.ts';
import { TOPICS } from '#schemas/events.ts';
import { metricsRegistry } from '#platform/metrics/registry.ts';
import { METRIC } from '#platform/metrics/names.ts';
import { runCycle } from './cycle.ts';
import { MarketState } from './state.ts';
import { announceSnapshot, ANNOUNCE_WAIT_MS } from './write-step.ts';
import { marketEvents, TICK, tradeEvents } from './testing/chain-fixture.ts';
import { storeEvents } from './testing/store-events.ts';

const CHAIN_OPTS = { tickerFreshnessMs: 300_000, priceFreshnessMs: 60_000 };

let store: Store;
let dispose: () => Promise<void>;
const state = new MarketState();

async function announceFailures(): Promise<number> {
  const m = await metricsRegistry.getSingleMetric(METRIC.snapshotAnnounceFailures)?.get();
  return m?.values.reduce((n, v) => n + v.value, 0) ?? 0;
}

before(async () => {
  ({ store, dispose } = await openTempStore());
  await migrate(store);
  await storeEvents(store, [...marketEvents(), ...tradeEvents()]);
  for (const e of marketEvents()) state.apply(e);
});
after(() => dispose());

test('a bus that refuses the announcement: the cycle is stored (gamma_flow written) and the failure counted', async () => {
  const refusing = new MemoryBus(); // no topics: every publish is refused
  const before = await announceFailures();
  const r = await runCycle({ store, bus: refusing, state, chain: CHAIN_OPTS }, 'BTCUSDT', TICK, 'live');
  assert.equal(r.kind, 'stored');
  const [flow] = await store.query<{ n: string }>("SELECT toString(count()) AS n FROM gamma_flow WHERE symbol = 'BTCUSDT'");
  assert.ok(Number(flow?.n) > 0, 'the completion marker is stored');
  assert.equal((await announceFailures()) - before, 1);
  await refusing.close();
});

test('a bus that does not take the announcement: the cycle waits ANNOUNCE_WAIT_MS, not for the send', async () => {
  const r = await runCycle({ store, bus: null, state, chain: CHAIN_OPTS }, 'BTCUSDT', TICK, 'live');
  assert.equal(r.kind, 'stored');
  if (r.kind !== 'stored') return;
  // One message per partition and a group that never commits it: every further publish waits for room.
  const stuck = new MemoryBus({ maxBufferedPerPartition: 1 });
  await ensureProductTopics(stuck, 1);
  let release = (): void => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  const consumer = await stuck.subscribe({ groupId: 'stuck', topics: [TOPICS.snapshot], eachBatch: () => held });
  await stuck.publish(TOPICS.snapshot, [{ key: 'x', value: Buffer.from('x') }]);
  const before = await announceFailures();
  const t0 = performance.now();
  assert.equal(await announceSnapshot(stuck, r.snapshot), false);
  const waited = performance.now() - t0;
  assert.ok(waited >= ANNOUNCE_WAIT_MS - 50 && waited < ANNOUNCE_WAIT_MS + 1_500, `waited ${Math.round(waited)} ms`);
  assert.equal((await announceFailures()) - before, 1);
  release();
  await consumer.stop();
  await stuck.close();
});
