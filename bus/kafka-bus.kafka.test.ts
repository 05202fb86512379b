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

  test('a handler running longer than the session timeout keeps its partitions: heartbeats while it runs, processed once', async () => {
    const bus = new KafkaBus({ brokers, clientId: 'long-handler', sessionTimeout: 6000, heartbeatInterval: 500, rebalanceTimeout: 4000 });
    try {
      const topic = `long-handler-${Date.now()}`;
      const groupId = `g-${topic}`;
      await bus.ensureTopics([{ name: topic, partitions: 1 }]);
      let calls = 0;
      let done = false;
      const assignments: number[] = [];
      const consumer = await bus.subscribe({
        groupId,
        topics: [topic],
        eachBatch: async () => {
          calls++;
          // 9 s: half again the 6 s session timeout.
          if (calls === 1) await new Promise((r) => setTimeout(r, 9_000));
          done = true;
        },
        onAssignment: (a) => assignments.push(a.length),
      });
      await bus.publish(topic, [{ key: 'a', value: Buffer.from('1') }]);
      const deadline = Date.now() + 40_000;
      while (!done && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      assert.ok(done, 'the batch was handled');
      await new Promise((r) => setTimeout(r, 3_000)); // a redelivery after an expired session would come now
      assert.equal(calls, 1, 'handled once: the session never expired under the long handler');
      assert.deepEqual(assignments, [1], 'one assignment: no rebalance');
      const lag = await bus.lag(groupId, topic);
      assert.deepEqual(
        lag.map((p) => [p.committed, p.end]),
        [['1', '1']],
      );
      await consumer.stop();
    } finally {
      await bus.close();
    }
  });

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
