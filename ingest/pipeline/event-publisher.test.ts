import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryBus } from '#bus/memory-bus.ts';
import type { BusMessage } from '#bus/types.ts';
import { optionTrade } from '#clickhouse/testing/fixtures.ts';
import type { MarketEvent } from '#schemas/events.ts';
import { TOPICS } from '#schemas/events.ts';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeMarketEvent } from '#schemas/event-codec.ts';
import { METRIC } from '#platform/metrics/names.ts';
import { metricsRegistry } from '#platform/metrics/registry.ts';
import { EventPublisher, SPOOL_AFTER_MS } from './event-publisher.ts';
import { PublishSpool } from './publish-spool.ts';

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

/**
 * The in-process bus with an outage switch: while down, a publish is refused (a stopped broker) or, with
 * `hang`, waits until the bus is up again (a client waiting for a leader).
 */
class OutageBus extends MemoryBus {
  down = false;
  refusals = 0;
  constructor(private readonly hang = false) {
    super({ clientId: 'outage' });
  }
  override async publish(topic: string, messages: readonly BusMessage[]): Promise<void> {
    while (this.down && this.hang) await new Promise((r) => setTimeout(r, 20));
    if (this.down) {
      this.refusals++;
      throw new Error('broker unreachable');
    }
    await super.publish(topic, messages);
  }
}

/** OutageBus counting the publishes it accepted, with their sizes. */
class CountingOutageBus extends OutageBus {
  readonly accepted: number[] = [];
  override async publish(topic: string, messages: readonly BusMessage[]): Promise<void> {
    await super.publish(topic, messages);
    this.accepted.push(messages.length);
  }
}

test('bus refusing for a while: what queued behind the refused batch leaves in full batches once it is back, in order', async () => {
  const bus = new CountingOutageBus();
  await bus.ensureTopics([{ name: TOPICS.option_trade, partitions: 1 }]);
  // Below the high-water mark (no spool): every linger drains a few events behind the refused batch.
  const publisher = new EventPublisher(bus, { maxBatch: 100, lingerMs: 5, highWaterMark: 10_000 });
  try {
    bus.down = true;
    let n = 0;
    const until = Date.now() + 1000;
    while (Date.now() < until) {
      publisher.add(events(n, 3));
      n += 3;
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.ok(bus.refusals > 0 && n >= 150, `${n} events added while refused ${bus.refusals} times`);
    bus.down = false;
    await publisher.flush();
    // The refused head batch (one linger's events), then the rest in batches of maxBatch, not one publish per
    // linger (~100 here).
    const full = Math.ceil((n - (bus.accepted[0] ?? 0)) / 100);
    assert.ok(bus.accepted.length <= full + 1, `${bus.accepted.length} publishes for ${n} events: ${bus.accepted.join(',')}`);
    assert.deepEqual(
      await publishedIds(bus),
      Array.from({ length: n }, (_, i) => `t${i}`),
      'every event once, in add order',
    );
  } finally {
    bus.down = false;
    await publisher.close();
    await bus.close();
  }
});

/** The trade ids on the topic, per partition in offset order. */
async function publishedIds(bus: MemoryBus): Promise<string[]> {
  const out: string[] = [];
  const consumer = await bus.subscribe({
    groupId: `read-${Math.random()}`,
    topics: [TOPICS.option_trade],
    fromBeginning: true,
    eachBatch: async (b) => {
      for (const m of b.messages) out.push(decodeMarketEvent(TOPICS.option_trade, m.value).event.id);
    },
  });
  await new Promise((r) => setTimeout(r, 200));
  await consumer.stop();
  return out;
}

async function metricValue(name: string): Promise<number> {
  const m = await metricsRegistry.getSingleMetric(name)?.get();
  return (m?.values ?? []).reduce((a, v) => a + v.value, 0);
}

test('bus hanging: past the high-water mark and SPOOL_AFTER_MS, new events go to the disk spool (no backpressure) and reach the bus in order once it is back', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gex-publisher-spool-'));
  const bus = new OutageBus(true);
  await bus.ensureTopics([{ name: TOPICS.option_trade, partitions: 1 }]);
  const spool = new PublishSpool({ dir, maxBytes: 1 << 30, segmentBytes: 64 * 1024 }).open();
  const publisher = new EventPublisher(bus, { maxBatch: 100, lingerMs: 10, highWaterMark: 300, spool });
  try {
    bus.down = true;
    let n = 0;
    // Up to the high-water mark: accepted into memory, then callers are held.
    let held: Promise<void> | undefined;
    while (held === undefined) held = publisher.add(events(n++, 1));
    assert.equal(n, 300, 'held at the high-water mark');
    assert.equal(await metricValue(METRIC.ingestPublishBacklog), 300, 'the held messages are the in-memory backlog');
    const heldAt = Date.now();
    await held;
    const waited = Date.now() - heldAt;
    assert.ok(waited >= SPOOL_AFTER_MS - 300 && waited < SPOOL_AFTER_MS + 1500, `released when the spool took over after ${waited} ms`);
    // Now spooled: 5,000 more events, none held.
    for (let i = 0; i < 5000; i++) assert.equal(publisher.add(events(n++, 1)), undefined);
    spool.flush();
    assert.ok(spool.bytes > 5000 * 100, `on disk: ${spool.bytes} bytes`);
    assert.ok((await metricValue(METRIC.ingestSpoolBytes)) > 0);
    assert.ok((await metricValue(METRIC.ingestSpooledMessages)) >= 5000);
    assert.ok(readdirSync(dir).filter((f) => f.endsWith('.spool')).length > 1, 'several segment files');
    // Back: the spool is published behind the in-memory events; new events follow it.
    bus.down = false;
    for (let i = 0; i < 200; i++) publisher.add(events(n++, 1));
    // Drained by the publisher itself (no flush: a running ingest never calls one).
    const deadline = Date.now() + 10_000;
    while (spool.bytes > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(spool.bytes, 0, 'the spool drained without a flush');
    await publisher.flush();
    assert.equal(await metricValue(METRIC.ingestPublishBacklog), 0, 'nothing held in memory once flushed');
    const ids = await publishedIds(bus);
    assert.deepEqual(
      ids,
      Array.from({ length: n }, (_, i) => `t${i}`),
      'every event once, in add order',
    );
    assert.equal(spool.bytes, 0);
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.endsWith('.spool')),
      [],
    );
    // Directly published again: no spool growth.
    publisher.add(events(n++, 1));
    await publisher.flush();
    assert.equal(spool.bytes, 0);
  } finally {
    bus.down = false;
    await publisher.close();
    await bus.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('stopped while the bus is down: the spool keeps what was not published, and the next process publishes it before anything new', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gex-publisher-spool-'));
  const bus = new OutageBus();
  await bus.ensureTopics([{ name: TOPICS.option_trade, partitions: 1 }]);
  try {
    bus.down = true;
    const first = new EventPublisher(bus, {
      maxBatch: 50,
      lingerMs: 10,
      highWaterMark: 100,
      spool: new PublishSpool({ dir, maxBytes: 1 << 30 }).open(),
    });
    let n = 0;
    let held: Promise<void> | undefined;
    while (held === undefined) held = first.add(events(n++, 1));
    const heldAt = Date.now();
    await held;
    assert.ok(Date.now() - heldAt < 1000, 'a refused publish is a stall at once: the spool takes over at the next check');
    assert.ok(bus.refusals > 0);
    for (let i = 0; i < 400; i++) first.add(events(n++, 1));
    await assert.rejects(first.close(), /broker unreachable/);
    const spooled = readdirSync(dir).filter((f) => f.endsWith('.spool'));
    assert.ok(spooled.length > 0, 'the spool is left on disk');
    bus.down = false;
    const next = new EventPublisher(bus, {
      maxBatch: 50,
      lingerMs: 10,
      highWaterMark: 100,
      spool: new PublishSpool({ dir, maxBytes: 1 << 30 }).open(),
    });
    next.add(events(1000, 1));
    await next.close();
    const ids = await publishedIds(bus);
    // The first process's in-memory events (the first 100, held when it stopped) are lost with it; the spooled
    // ones follow in order, then the new process's own.
    assert.deepEqual(ids, [...Array.from({ length: n - 100 }, (_, i) => `t${i + 100}`), 't1000']);
  } finally {
    await bus.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
