/**
 * A lease on the real broker: members joining the group do not move the lease (kafkajs member ids are random, so
 * round-robin alone gives partition 0 to whichever id sorts first: the holder kept it through four joins only one
 * time in five), and when the holder leaves exactly one other member takes it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KafkaBus } from './kafka-bus.ts';
import { holdLease, type Lease } from './lease.ts';

const brokers = (process.env.KAFKA_TEST_BROKERS ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter((s) => s.length > 0);

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until(what: string, predicate: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

test(
  'joining members leave the lease with its holder; when the holder leaves, one other member takes it',
  { timeout: 180_000 },
  async () => {
    assert.ok(brokers.length > 0, 'KAFKA_TEST_BROKERS is not set (run `npm test`, which starts Kafka, or set it)');
    const topic = `lease-${Date.now()}`;
    const groupId = `g-${topic}`;
    const bus = new KafkaBus({ brokers, clientId: 'lease', sessionTimeout: 6000, heartbeatInterval: 300, rebalanceTimeout: 4000 });
    const events: string[] = [];
    const members = new Map<string, Lease>();
    const join = async (name: string): Promise<Lease> => {
      const lease = await holdLease(bus, {
        groupId,
        topic,
        onAcquired: async () => {
          events.push(`${name} start`);
          return async () => void events.push(`${name} stop`);
        },
      });
      members.set(name, lease);
      return lease;
    };
    const holders = (): string[] => [...members].filter(([, m]) => m.held()).map(([name]) => name);
    try {
      await bus.ensureTopics([{ name: topic, partitions: 3 }]);
      const a = await join('a');
      await until('the first member to take the lease', () => a.held());
      for (const name of ['b', 'c', 'd', 'e']) {
        await join(name); // resolves once the group, this member included, has its new assignment
        await sleep(1000); // the others apply theirs on their own sync
        assert.deepEqual(holders(), ['a'], `after ${name} joined`);
      }
      assert.deepEqual(events, ['a start']);
      await a.stop();
      members.delete('a');
      await until('another member to take the lease', () => holders().length === 1);
      await sleep(1000);
      const [next] = holders();
      assert.deepEqual(events, ['a start', 'a stop', `${next} start`]);
      await join('f');
      await sleep(1000);
      assert.deepEqual(holders(), [next], 'a member joining after the handover leaves the lease with the new holder');
      assert.deepEqual(events, ['a start', 'a stop', `${next} start`]);
    } finally {
      for (const m of members.values()) await m.stop().catch(() => undefined);
      await bus.close();
    }
  },
);
