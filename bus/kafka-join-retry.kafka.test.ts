/**
 * A consumer that joins its group while the broker is away waits for it (shared backoff) and carries on when it is
 * back, instead of failing the subscription (a `gex processors` started during an outage exited with "start failed").
 * The broker is reached through a local TCP port that refuses connections for the first seconds, then forwards to
 * the Kafka suite's broker (which advertises its own address for everything after the bootstrap).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { KafkaBus } from './kafka-bus.ts';

const brokers = (process.env.KAFKA_TEST_BROKERS ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter((s) => s.length > 0);

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A port that refuses connections until open(), then forwards each connection to `target` (host:port). */
async function lateBroker(target: string): Promise<{ address: string; open(): Promise<void>; close(): Promise<void> }> {
  const [host, port] = target.split(':');
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const local = (probe.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect({ host, port: Number(port) });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  return {
    address: `127.0.0.1:${local}`,
    open: () => new Promise<void>((resolve) => server.listen(local, '127.0.0.1', resolve)),
    close: async () => {
      for (const s of sockets) s.destroy();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

test('a group join while the broker is away waits for it and consumes once it is back', { timeout: 120_000 }, async () => {
  assert.ok(brokers.length > 0, 'KAFKA_TEST_BROKERS is not set (run `npm test`, which starts Kafka, or set it)');
  const topic = `join-retry-${Date.now()}`;
  const setup = new KafkaBus({ brokers, clientId: 'join-retry-setup' });
  const late = await lateBroker(brokers[0] as string);
  // One client retry (~0.1 s): without the join retry the subscription fails long before the broker is reachable.
  const bus = new KafkaBus({ brokers: [late.address], clientId: 'join-retry', retries: 1, initialRetryTime: 50 });
  try {
    await setup.ensureTopics([{ name: topic, partitions: 1 }]);
    const got: string[] = [];
    let outcome: 'pending' | 'joined' | 'failed' = 'pending';
    const subscribing = bus.subscribe({
      groupId: `g-${topic}`,
      topics: [topic],
      fromBeginning: true,
      eachBatch: async (b) => {
        for (const m of b.messages) got.push(m.value.toString());
      },
    });
    subscribing.then(
      () => (outcome = 'joined'),
      () => (outcome = 'failed'),
    );
    await sleep(4_000);
    assert.equal(outcome, 'pending', 'still waiting for the broker (not failed)');
    await late.open();
    const consumer = await subscribing;
    await setup.publish(topic, [{ key: 'k', value: Buffer.from('after the outage') }]);
    const deadline = Date.now() + 30_000;
    while (got.length === 0 && Date.now() < deadline) await sleep(100);
    assert.deepEqual(got, ['after the outage']);
    await consumer.stop();
  } finally {
    await bus.close();
    await setup.close();
    await late.close();
  }
});
