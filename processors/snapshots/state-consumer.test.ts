import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryBus } from '#bus/memory-bus.ts';
import { ensureProductTopics } from '#bus/topics.ts';
import { childLogger } from '#platform/log.ts';
import { TOPICS } from '#schemas/events.ts';
import { encodeMarketEvent } from '#schemas/event-codec.ts';
import { snapshotConfig } from './config.ts';
import { consumeStateTopics } from './state-consumer.ts';
import { MarketState } from './state.ts';
import { indexPrice } from './testing/events.ts';

const log = childLogger('state-consumer-test');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for: ${what}`);
    await sleep(20);
  }
}

async function publishIndex(bus: MemoryBus, value: number, ts: number): Promise<void> {
  const { topic, message } = encodeMarketEvent({ type: 'index', event: indexPrice('deribit', value, ts) });
  await bus.publish(topic, [message]);
}

async function committedTotal(bus: MemoryBus, groupId: string): Promise<number> {
  return (await bus.lag(groupId, TOPICS.index)).reduce((s, p) => s + Math.max(0, Number(p.committed)), 0);
}

test('state consumer: the state follows the bus while the raw writer is stalled; its commits wait for the raw writer and land after it', async () => {
  const bus = new MemoryBus();
  await ensureProductTopics(bus, 1);
  // The raw writer's group on the same bus, held: it handles nothing (no commit) until released.
  let release: () => void = () => undefined;
  const held = new Promise<void>((r) => (release = r));
  const rawWriter = await bus.subscribe({ groupId: 'raw-writer', topics: [TOPICS.index], eachBatch: () => held });
  const cfg = snapshotConfig({ symbols: ['BTCUSDT'], durableGroupId: 'raw-writer', groupId: 'gex-snapshots' });
  const state = new MarketState();
  const gate = new AbortController();
  const consumer = await consumeStateTopics(bus, cfg, state, gate.signal, log);
  const spot = (): number | undefined => state.view('BTCUSDT').index.find((p) => p.venue === 'deribit')?.value;
  try {
    const t0 = Date.UTC(2026, 10, 29, 12);
    await publishIndex(bus, 90_000, t0);
    await waitFor('the first index price applied', () => spot() === 90_000);
    // A later batch is fetched and applied although the first one's commit still waits for the raw writer.
    await publishIndex(bus, 90_500, t0 + 1_000);
    await waitFor('the second index price applied', () => spot() === 90_500);
    await publishIndex(bus, 91_000, t0 + 2_000);
    await waitFor('the third index price applied', () => spot() === 91_000);
    await sleep(200);
    assert.equal(await committedTotal(bus, 'gex-snapshots'), 0, 'nothing committed before the raw writer stored it');

    release();
    await waitFor('the raw writer committed all 3', async () => (await committedTotal(bus, 'raw-writer')) === 3);
    await waitFor('the state consumer committed all 3 after it', async () => (await committedTotal(bus, 'gex-snapshots')) === 3);
  } finally {
    release();
    await consumer.stop();
    await rawWriter.stop();
    await bus.close();
  }
});

test('state consumer: stop() with a commit still waiting ends after the grace (the gate signal), leaving the batch uncommitted', async () => {
  const bus = new MemoryBus();
  await ensureProductTopics(bus, 1);
  const cfg = snapshotConfig({ symbols: ['BTCUSDT'], durableGroupId: 'raw-writer', groupId: 'gex-snapshots' });
  const state = new MarketState();
  const gate = new AbortController();
  const consumer = await consumeStateTopics(bus, cfg, state, gate.signal, log);
  await publishIndex(bus, 90_000, Date.UTC(2026, 10, 29, 12));
  await waitFor('applied', () => state.view('BTCUSDT').index.length === 1);
  // No raw writer ever commits: stop() waits for the pending commit until the gate is aborted.
  let stopped = false;
  const stopping = consumer.stop().then(() => (stopped = true));
  await sleep(300);
  assert.equal(stopped, false, 'stop() waits for the pending commit');
  gate.abort();
  await stopping;
  assert.equal(await committedTotal(bus, 'gex-snapshots'), 0);
  await bus.close();
});
