import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { runBusContract } from './testing/bus-contract.ts';
import { MemoryBus } from './memory-bus.ts';
import { metricsRegistry } from '#platform/metrics/registry.ts';
import type { BusMessage, ConsumedBatch } from './types.ts';

runBusContract('memory', () => new MemoryBus({ clientId: 'contract', retryBackoffMs: 20 }));

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const msgs = (n: number, from = 0, key = 'k'): BusMessage[] =>
  Array.from({ length: n }, (_, i) => ({ key, value: Buffer.from([(from + i) & 0xff]), headers: { n: String(from + i) } }));

async function until(predicate: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(5);
  }
}

describe('memory bus specifics', () => {
  test('publish waits while a partition holds maxBufferedPerPartition uncommitted messages', async () => {
    const bus = new MemoryBus({ maxBufferedPerPartition: 10 });
    await bus.ensureTopics([{ name: 't', partitions: 1 }]);
    let gate: () => void = () => undefined;
    const delivered: string[] = [];
    const consumer = await bus.subscribe({
      groupId: 'g',
      topics: ['t'],
      maxBatchSize: 5,
      eachBatch: async (b) => {
        await new Promise<void>((r) => (gate = r));
        delivered.push(...b.messages.map((m) => m.offset));
      },
    });
    await bus.publish('t', msgs(10)); // exactly full: resolves at once
    let done = false;
    const pending = bus.publish('t', msgs(3, 10)).then(() => (done = true));
    await sleep(30);
    assert.equal(done, false, 'the 11th message waits for room');
    assert.deepEqual((await bus.lag('g', 't'))[0], { partition: 0, committed: '0', end: '10' });
    gate(); // commit offsets 0..4 -> room for 5
    await pending;
    assert.equal(done, true);
    assert.deepEqual((await bus.lag('g', 't'))[0], { partition: 0, committed: '5', end: '13' });
    while (delivered.length < 13) {
      gate();
      await sleep(1);
    }
    assert.deepEqual(
      delivered,
      Array.from({ length: 13 }, (_, i) => String(i)),
    );
    gate();
    await consumer.stop();
    await bus.close();
  });

  test('retention: committed messages are freed; a late group starts at the earliest retained offset', async () => {
    const bus = new MemoryBus({ maxBufferedPerPartition: 1000 });
    await bus.ensureTopics([{ name: 't', partitions: 1 }]);
    let count = 0;
    const a = await bus.subscribe({ groupId: 'a', topics: ['t'], eachBatch: async (b) => void (count += b.messages.length) });
    for (let i = 0; i < 50; i++) await bus.publish('t', msgs(100, i * 100)); // 5000 > capacity: needs trimming
    await until(() => count === 5000);
    const first: ConsumedBatch[] = [];
    const b = await bus.subscribe({ groupId: 'b', topics: ['t'], fromBeginning: true, eachBatch: async (x) => void first.push(x) });
    await bus.publish('t', msgs(1, 5000));
    await until(() => first.length > 0);
    assert.equal(first[0]?.messages[0]?.offset, '5000', 'everything committed by the only group was freed');
    await a.stop();
    await b.stop();
    await bus.close();
  });

  test('a topic no group reads keeps its newest messages (size retention), never blocks', async () => {
    const bus = new MemoryBus({ maxBufferedPerPartition: 100 });
    await bus.ensureTopics([{ name: 't', partitions: 1 }]);
    for (let i = 0; i < 10; i++) await bus.publish('t', msgs(50, i * 50));
    const seen: string[] = [];
    const c = await bus.subscribe({
      groupId: 'late',
      topics: ['t'],
      eachBatch: async (x) => void seen.push(...x.messages.map((m) => m.offset)),
    });
    await until(() => seen.length >= 100);
    assert.equal(seen[0], '400');
    assert.equal(seen[99], '499');
    await c.stop();
    await bus.close();
  });

  test('fromBeginning false starts at the log end', async () => {
    const bus = new MemoryBus();
    await bus.ensureTopics([{ name: 't', partitions: 2 }]);
    await bus.publish('t', msgs(20));
    const seen: string[] = [];
    const c = await bus.subscribe({
      groupId: 'g',
      topics: ['t'],
      fromBeginning: false,
      eachBatch: async (x) => void seen.push(...x.messages.map((m) => m.headers.n ?? '')),
    });
    await bus.publish('t', msgs(2, 20));
    await until(() => seen.length >= 2);
    await sleep(10);
    assert.deepEqual(seen, ['20', '21']);
    await c.stop();
    await bus.close();
  });

  test('unknown topics and a closed bus are errors', async () => {
    const bus = new MemoryBus();
    await assert.rejects(bus.publish('nope', msgs(1)), /unknown topic "nope"/);
    await assert.rejects(bus.subscribe({ groupId: 'g', topics: ['nope'], eachBatch: async () => undefined }), /unknown topic/);
    await bus.close();
    await assert.rejects(bus.ensureTopics([{ name: 'x', partitions: 1 }]), /closed/);
    await assert.rejects(bus.publish('x', msgs(1)), /closed/);
  });

  test('onAssignment reports rebalances (round-robin assignor)', async () => {
    const bus = new MemoryBus({ assignment: 'roundrobin' });
    await bus.ensureTopics([{ name: 't', partitions: 3 }]);
    const seen1: number[][] = [];
    const c1 = await bus.subscribe({
      groupId: 'g',
      topics: ['t'],
      eachBatch: async () => undefined,
      onAssignment: (a) => seen1.push(a.map((x) => x.partition)),
    });
    const c2 = await bus.subscribe({ groupId: 'g', topics: ['t'], eachBatch: async () => undefined });
    assert.deepEqual(seen1, [
      [0, 1, 2],
      [0, 2],
    ]);
    assert.deepEqual(c2.assignments(), [{ topic: 't', partition: 1 }]);
    await c2.stop();
    assert.deepEqual(seen1.at(-1), [0, 1, 2]);
    await c1.stop();
    await bus.close();
  });

  test('metrics: published/consumed counters and the lag gauge', async () => {
    const bus = new MemoryBus();
    const topic = `metrics.${Date.now()}`;
    await bus.ensureTopics([{ name: topic, partitions: 2 }]);
    let gate: () => void = () => undefined;
    const c = await bus.subscribe({
      groupId: 'gm',
      topics: [topic],
      maxBatchSize: 1000,
      eachBatch: async () => {
        await new Promise<void>((r) => (gate = r));
      },
    });
    // murmur2 & 0x7fffffff: 'd' -> 284602193 (odd: partition 1), 'a' -> 584102524 (even: partition 0).
    await bus.publish(topic, [...msgs(30, 0, 'd'), ...msgs(12, 30, 'a')]);
    await sleep(5);
    const text1 = await metricsRegistry.metrics();
    assert.match(text1, new RegExp(`gex_bus_published_messages_total\\{topic="${topic}",bus="memory",service="gex"\\} 42`));
    assert.match(text1, new RegExp(`gex_bus_consumer_lag_messages\\{topic="${topic}",group="gm",partition="1",service="gex"\\} 30`));
    assert.match(text1, new RegExp(`gex_bus_consumer_lag_messages\\{topic="${topic}",group="gm",partition="0",service="gex"\\} 12`));
    gate();
    await sleep(5);
    gate();
    await sleep(5);
    const text2 = await metricsRegistry.metrics();
    assert.match(text2, new RegExp(`gex_bus_consumed_messages_total\\{topic="${topic}",group="gm",bus="memory",service="gex"\\} 42`));
    assert.match(text2, new RegExp(`gex_bus_consumer_lag_messages\\{topic="${topic}",group="gm",partition="1",service="gex"\\} 0`));
    await c.stop();
    await bus.close();
    assert.doesNotMatch(
      await metricsRegistry.metrics(),
      new RegExp(`gex_bus_consumer_lag_messages\\{topic="${topic}"`),
      'a stopped subscription is no longer tracked',
    );
  });
});
