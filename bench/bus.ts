import { pathToFileURL } from 'node:url';
import { randomBytes } from 'node:crypto';
import avro from 'avsc';
import type { Bus, BusMessage } from '../ops/bus/types.ts';
import { MemoryBus } from '../ops/bus/memory-bus.ts';
import { KafkaBus } from '../ops/bus/kafka-bus.ts';

/**
 * Bus throughput: publish -> consume events/s through the in-process bus and (when KAFKA_BROKERS or
 * KAFKA_TEST_BROKERS is set) through Kafka, each against a baseline of raw Avro encode+decode of the same
 * ~200-byte events. Prints plain-text table lines.
 */

const tradeType = avro.Type.forSchema({
  type: 'record',
  name: 'BenchOptionTrade',
  fields: [
    { name: 'venue', type: 'string' },
    { name: 'symbol', type: 'string' },
    { name: 'ts', type: 'long' },
    { name: 'receivedAt', type: 'long' },
    { name: 'id', type: 'string' },
    { name: 'instrument', type: 'string' },
    { name: 'strike', type: 'double' },
    { name: 'expiry', type: 'long' },
    { name: 'optionType', type: 'string' },
    { name: 'price', type: 'double' },
    { name: 'priceCurrency', type: 'string' },
    { name: 'priceUsd', type: 'double' },
    { name: 'size', type: 'double' },
    { name: 'premiumUsd', type: 'double' },
    { name: 'side', type: 'string' },
    { name: 'iv', type: ['null', 'double'] },
    { name: 'indexPrice', type: ['null', 'double'] },
    { name: 'underlyingPrice', type: ['null', 'double'] },
    { name: 'tradeId', type: 'string' },
    { name: 'block', type: 'boolean' },
    { name: 'source', type: 'string' },
  ],
});

interface BenchTrade {
  readonly [field: string]: string | number | boolean | null;
}

function makeTrade(i: number): BenchTrade {
  const strike = 60_000 + (i % 40) * 1000;
  return {
    venue: 'deribit',
    symbol: 'BTCUSDT',
    ts: 1_750_000_000_000 + i,
    receivedAt: 1_750_000_000_005 + i,
    id: `deribit:trade:${100_000_000 + i}`,
    instrument: `BTC-27JUN25-${strike}-${i % 2 ? 'C' : 'P'}`,
    strike,
    expiry: 1_751_011_200_000,
    optionType: i % 2 ? 'call' : 'put',
    price: 0.0215 + (i % 100) * 1e-4,
    priceCurrency: 'BTC',
    priceUsd: 2150.5 + (i % 100),
    size: 0.1 * (1 + (i % 10)),
    premiumUsd: 215.05 * (1 + (i % 10)),
    side: i % 3 ? 'buy' : 'sell',
    iv: 0.55 + (i % 50) * 1e-3,
    indexPrice: 100_012.5,
    underlyingPrice: 100_105.25,
    tradeId: String(100_000_000 + i),
    block: false,
    source: `wss://www.deribit.com/ws/api/v2#${i % 7}`,
  };
}

const POOL = 1000;
const trades = Array.from({ length: POOL }, (_, i) => makeTrade(i));
const encoded = trades.map((t) => tradeType.toBuffer(t));
const keys = trades.map((t) => String(t.instrument));

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

function line(name: string, events: number, ms: number, baseline: number | null): number {
  const rate = (events / ms) * 1000;
  const ratio = baseline === null ? 'baseline' : `${(rate / baseline).toFixed(2)}x baseline`;
  console.log(`${name.padEnd(40)} ${fmt(events).padStart(10)} ev ${ms.toFixed(0).padStart(7)} ms ${fmt(rate).padStart(12)} ev/s   ${ratio}`);
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
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await runBusBench();
