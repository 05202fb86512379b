import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kafkajsGroupingFix } from './kafkajs-grouping-fix.ts'; // before kafkajs, as in the product
import { Kafka, logLevel } from 'kafkajs';
import { runBusContract } from './testing/bus-contract.ts';
import { KafkaBus } from './kafka-bus.ts';

// The Kafka suite needs a broker: tools/run-tests.mjs starts one (ops/kafka/start.sh) and sets
// KAFKA_TEST_BROKERS. Without it, or with the broker down, this file FAILS (it never skips).
const raw = process.env.KAFKA_TEST_BROKERS;
const brokers = (raw ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter((s) => s.length > 0);

async function probe(): Promise<string | null> {
  if (brokers.length === 0) return 'KAFKA_TEST_BROKERS is not set (run `npm test`, which starts Kafka, or set it)';
  const admin = new Kafka({
    clientId: 'probe',
    brokers,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 2000,
    retry: { retries: 1 },
  }).admin();
  try {
    await admin.connect();
    const cluster = await admin.describeCluster();
    return cluster.brokers.length > 0 ? null : 'the broker reports no live brokers';
  } catch (err) {
    return `broker ${brokers.join(',')} unreachable: ${err instanceof Error ? err.message : String(err)}`;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

const problem = await probe();
if (problem !== null) {
  test('Kafka broker for the bus contract', () => {
    assert.fail(problem);
  });
} else {
  runBusContract(
    'kafka',
    () =>
      new KafkaBus({
        brokers,
        clientId: 'contract',
        sessionTimeout: 6000,
        heartbeatInterval: 300,
        rebalanceTimeout: 4000,
        retryBackoffMs: 50,
      }),
    { waitMs: 30_000, quietMs: 1000 },
  );

  test('kafkajs sends through the linear per-partition grouping (kafkajs-grouping-fix.ts)', async () => {
    assert.equal(kafkajsGroupingFix.active, true);
    const bus = new KafkaBus({ brokers, clientId: 'grouping-fix' });
    try {
      const topic = `grouping-fix-${Date.now()}`;
      await bus.ensureTopics([{ name: topic, partitions: 3 }]);
      const before = kafkajsGroupingFix.calls();
      await bus.publish(topic, [
        { key: 'a', value: Buffer.from('1') },
        { key: 'b', value: Buffer.from('2') },
      ]);
      assert.ok(kafkajsGroupingFix.calls() > before, 'the producer grouped its send with the linear grouping');
    } finally {
      await bus.close();
    }
  });
}
