/**
 * The Kafka bus's publish deadline on a real broker (a private one: ops/kafka/start.sh on free ports): while the broker
 * is frozen (SIGSTOP: its connections stay open, nothing is answered), a publish fails at the bus's deadline instead of
 * waiting on kafkajs, and the producer is replaced; once the broker is thawed the next publish goes through a new
 * producer, and everything accepted is there to consume.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KafkaBus } from '#bus/kafka-bus.ts';
import { metricsRegistry } from '#platform/metrics/registry.ts';
import { METRIC } from '#platform/metrics/names.ts';
import { freePort } from '../free-port.ts';
import { startPrivateBroker, type BrokerControl } from './kafka-broker.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const DEADLINE_MS = 3_000;

async function replacements(): Promise<number> {
  const m = await metricsRegistry.getSingleMetric(METRIC.busProducerReplacements)?.get();
  return (m?.values ?? []).reduce((n, v) => n + v.value, 0);
}

test(
  'a publish unanswered past the deadline (broker frozen) fails, the producer is replaced, the next publish goes through',
  { timeout: 300_000 },
  async () => {
    const workDir = mkdtempSync(join(tmpdir(), 'gex-publish-deadline-'));
    let broker: BrokerControl | null = null;
    let bus: KafkaBus | null = null;
    let frozen = false;
    try {
      broker = startPrivateBroker(root, join(workDir, 'kafka'), await freePort(), await freePort());
      bus = new KafkaBus({ brokers: broker.brokers, clientId: 'publish-deadline', publishDeadlineMs: DEADLINE_MS });
      const topic = 'publish-deadline';
      await bus.ensureTopics([{ name: topic, partitions: 1 }]);
      const message = (v: string) => [{ key: 'k', value: Buffer.from(v) }];
      await bus.publish(topic, message('before'));
      const replacedBefore = await replacements();

      frozen = true; // before the wait: a freeze that throws still has its SIGSTOP undone below
      await broker.freeze();
      const t0 = Date.now();
      await assert.rejects(bus.publish(topic, message('during')), /unanswered after 3000 ms; the producer is replaced/);
      const took = Date.now() - t0;
      assert.ok(took >= DEADLINE_MS - 50 && took < DEADLINE_MS + 2_000, `failed at the deadline, not kafkajs' 30 s: ${took} ms`);
      assert.equal((await replacements()) - replacedBefore, 1);

      broker.thaw();
      frozen = false;
      await bus.publish(topic, message('after'));
      assert.equal((await replacements()) - replacedBefore, 1, 'the new producer answered: no further replacement');

      const got: string[] = [];
      const consumer = await bus.subscribe({
        groupId: 'publish-deadline-reader',
        topics: [topic],
        fromBeginning: true,
        eachBatch: async (b) => {
          for (const m of b.messages) got.push(m.value.toString());
        },
      });
      const deadline = Date.now() + 60_000;
      while (!got.includes('after') && Date.now() < deadline) await sleep(100);
      await consumer.stop();
      // At least once: the abandoned send may land after the thaw (a duplicate the stores collapse by id), or not.
      assert.deepEqual(
        got.filter((v) => v !== 'during'),
        ['before', 'after'],
      );
    } finally {
      if (frozen) broker?.thaw();
      await bus?.close();
      broker?.stop();
      rmSync(workDir, { recursive: true, force: true });
    }
  },
);
