import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryBus } from '#bus/memory-bus.ts';
import type { BusMessage } from '#bus/types.ts';
import { optionTrade } from '#clickhouse/testing/fixtures.ts';
import type { MarketEvent } from '#schemas/events.ts';
import { TOPICS } from '#schemas/events.ts';
import { EventPublisher } from './event-publisher.ts';

/** The in-process bus, each publish taking `delayMs` (a bus slower than the venues); batch sizes recorded. */
class SlowBus extends MemoryBus {
  readonly sizes: number[] = [];
  constructor(private readonly delayMs: number) {
    super({ clientId: 'slow' });
  }
  override async publish(topic: string, messages: readonly BusMessage[]): Promise<void> {
    this.sizes.push(messages.length);
    await new Promise((r) => setTimeout(r, this.delayMs));
    await super.publish(topic, messages);
  }
}

const events = (from: number, n: number): MarketEvent[] =>
  Array.from({ length: n }, (_, i) => ({ type: 'option_trade', event: { ...optionTrade(from + i), id: `t${from + i}` } }) as MarketEvent);

test('behind a slow bus: add() returns backpressure, and batches stay full (no flush per add)', async () => {
  const bus = new SlowBus(20);
  await bus.ensureTopics([{ name: TOPICS.option_trade, partitions: 3 }]);
  const publisher = new EventPublisher(bus, { maxBatch: 100, lingerMs: 50, highWaterMark: 150 });
  let pressured = 0;
  for (let i = 0; i < 100; i++) {
    const wait = publisher.add(events(i * 10, 10)); // 1,000 events in frames of 10
    if (wait) pressured++;
  }
  await publisher.close();
  assert.ok(pressured > 0, 'above the high-water mark add() hands back a promise');
  assert.equal(
    bus.sizes.reduce((a, b) => a + b, 0),
    1000,
    'every event published once',
  );
  assert.deepEqual(bus.sizes, new Array<number>(10).fill(100), 'ten full batches of maxBatch, never one per add');
  await bus.close();
});
