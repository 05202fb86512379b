import { fork } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { randomBytes } from 'node:crypto';
import type { Bus, BusMessage } from '#bus/types.ts';
import { MemoryBus } from '#bus/memory-bus.ts';
import { KafkaBus } from '#bus/kafka-bus.ts';

/**
 * Bus throughput: publish -> consume events/s through the in-process bus and (when KAFKA_BROKERS or
 * KAFKA_TEST_BROKERS is set) through Kafka, each against a baseline of raw Avro encode+decode of the same
 * ~200-byte events. Prints plain-text table lines.
 */

import { encoded, keys, POOL, trades, tradeType } from './bus-events.ts';

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

function line(name: string, events: number, ms: number, baseline: number | null): number {
  const rate = (events / ms) * 1000;
  const ratio = baseline === null ? 'baseline' : `${(rate / baseline).toFixed(2)}x baseline`;
  console.log(
    `${name.padEnd(40)} ${fmt(events).padStart(10)} ev ${ms.toFixed(0).padStart(7)} ms ${fmt(rate).padStart(12)} ev/s   ${ratio}`,
  );
  return rate;
}

function codecBaseline(events: number): number {
  const start = performance.now();
  let bytes = 0;
  for (let i = 0; i < events; i++) {
    const buf = tradeType.toBuffer(trades[i % POOL]);
    bytes += buf.length;
    tradeType.fromBuffer(buf);
  }
  const ms = performance.now() - start;
  if (bytes === 0) throw new Error('nothing encoded');
  return line(`avro encode+decode (${Math.round(bytes / events)} B/event)`, events, ms, null);
}

/** Publish `events` in batches and wait until one consumer group has consumed them all. */
async function throughput(bus: Bus, events: number, batchSize: number, partitions: number, withCodec: boolean): Promise<number> {
  const topic = `bench.bus.${randomBytes(4).toString('hex')}`;
  await bus.ensureTopics([{ name: topic, partitions }]);
  let consumed = 0;
  let resolveDone: () => void = () => undefined;
  const done = new Promise<void>((r) => (resolveDone = r));
  const consumer = await bus.subscribe({
    groupId: `${topic}.g`,
    topics: [topic],
    maxBatchSize: batchSize,
    eachBatch: async (batch) => {
      if (withCodec) for (const m of batch.messages) tradeType.fromBuffer(m.value);
      consumed += batch.messages.length;
      if (consumed >= events) resolveDone();
    },
  });
  const start = performance.now();
  for (let sent = 0; sent < events; sent += batchSize) {
    const n = Math.min(batchSize, events - sent);
    const batch: BusMessage[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const j = (sent + i) % POOL;
      batch[i] = { key: keys[j] ?? '', value: withCodec ? tradeType.toBuffer(trades[j]) : (encoded[j] ?? Buffer.alloc(0)) };
    }
    await bus.publish(topic, batch);
  }
  await done;
  const ms = performance.now() - start;
  await consumer.stop();
  return ms;
}

/**
 * Kafka round trip with the publisher in a second process (bench/bus-publisher-process.ts) and this process
 * consuming: the product's own layout (ingest role publishes, processor roles consume, in separate processes).
 * Timed from the publisher's go to the last message consumed here.
 */
async function twoProcessThroughput(brokers: readonly string[], events: number, batchSize: number, withCodec: boolean): Promise<number> {
  const bus = new KafkaBus({ brokers: [...brokers], clientId: 'bench-consumer', sessionTimeout: 10_000, heartbeatInterval: 1000 });
  const child = fork(fileURLToPath(new URL('./bus-publisher-process.ts', import.meta.url)), [], {
    execArgv: [
      '--import',
      'tsx',
      ...(process.env['BENCH_CHILD_PROF'] ? ['--cpu-prof', `--cpu-prof-dir=${process.env['BENCH_CHILD_PROF']}`] : []),
    ],
    env: { ...process.env, KAFKA_BROKERS: brokers.join(','), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const replies: ((m: Record<string, unknown>) => void)[] = [];
  child.on('message', (m) => replies.shift()?.(m as Record<string, unknown>));
  const next = (): Promise<Record<string, unknown>> => new Promise((resolve) => replies.push(resolve));
  try {
    await next(); // ready
    const topic = `bench.bus2.${randomBytes(4).toString('hex')}`;
    await bus.ensureTopics([{ name: topic, partitions: 6 }]);
    let consumed = 0;
    let resolveDone: () => void = () => undefined;
    const done = new Promise<void>((r) => (resolveDone = r));
    let assigned: () => void = () => undefined;
    const isAssigned = new Promise<void>((r) => (assigned = r));
    const consumer = await bus.subscribe({
      groupId: `${topic}.g`,
      topics: [topic],
      maxBatchSize: batchSize,
      onAssignment: (parts) => {
        if (parts.length > 0) assigned();
      },
      eachBatch: async (batch) => {
        if (withCodec) for (const m of batch.messages) tradeType.fromBuffer(m.value);
        consumed += batch.messages.length;
        if (consumed >= events) resolveDone();
      },
    });
    await isAssigned;
    const start = performance.now();
    const published = next();
    child.send({ cmd: 'go', topic, events, batchSize, withCodec });
    await Promise.all([done, published]);
    const ms = performance.now() - start;
    await consumer.stop();
    return ms;
  } finally {
    child.send({ cmd: 'stop' });
    await bus.close();
  }
}

export async function runBusBench(): Promise<void> {
  console.log('bus throughput (publish -> consume, one consumer group)');
  codecBaseline(20_000); // warm-up
  const baseline = codecBaseline(300_000);

  const memory = new MemoryBus({ clientId: 'bench' });
  await throughput(memory, 100_000, 1000, 6, false); // warm-up
  const memEvents = 1_000_000;
  line('memory bus, batches of 1000', memEvents, await throughput(memory, memEvents, 1000, 6, false), baseline);
  line('memory bus + avro encode/decode', memEvents, await throughput(memory, memEvents, 1000, 6, true), baseline);
  await memory.close();

  const brokers = (process.env.KAFKA_BROKERS ?? process.env.KAFKA_TEST_BROKERS ?? '').split(',').filter((b) => b.length > 0);
  if (brokers.length === 0) {
    console.log('kafka bus: skipped (set KAFKA_BROKERS or KAFKA_TEST_BROKERS)');
    return;
  }
  const kafka = new KafkaBus({ brokers, clientId: 'bench', sessionTimeout: 10_000, heartbeatInterval: 1000 });
  try {
    await throughput(kafka, 20_000, 5000, 6, false); // warm-up
    const kEvents = 300_000;
    line('kafka bus, batches of 5000', kEvents, await throughput(kafka, kEvents, 5000, 6, false), baseline);
    line('kafka bus + avro encode/decode', kEvents, await throughput(kafka, kEvents, 5000, 6, true), baseline);
  } finally {
    await kafka.close();
  }
  await twoProcessThroughput(brokers, 20_000, 5000, false); // warm-up
  const k2Events = 300_000;
  line('kafka, publisher in a 2nd process', k2Events, await twoProcessThroughput(brokers, k2Events, 5000, false), baseline);
  line('kafka, 2 processes + avro encode/decode', k2Events, await twoProcessThroughput(brokers, k2Events, 5000, true), baseline);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await runBusBench();
