import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryBus } from './memory-bus.ts';
import { holdLease } from './lease.ts';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until(predicate: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(5);
  }
}

test('one member of the group holds the lease; when it stops, its job stops first and then another member takes it', async () => {
  const bus = new MemoryBus({ clientId: 'lease' });
  await bus.ensureTopics([{ name: 't', partitions: 3 }]);
  const events: string[] = [];
  const member = (name: string) =>
    holdLease(bus, {
      groupId: 'g',
      topic: 't',
      onAcquired: async () => {
        events.push(`${name} start`);
        return async () => void events.push(`${name} stop`);
      },
    });
  const a = await member('a');
  await until(() => a.held());
  const b = await member('b');
  const c = await member('c');
  await sleep(50);
  assert.deepEqual(
    [a.held(), b.held(), c.held()],
    [true, false, false],
    'joining members rebalance the group; partition 0 stays with one member',
  );
  await a.stop();
  await until(() => b.held() || c.held());
  assert.equal(a.held(), false);
  assert.equal([b, c].filter((m) => m.held()).length, 1, 'exactly one holder after the handover');
  const next = b.held() ? 'b' : 'c';
  assert.deepEqual(events, ['a start', 'a stop', `${next} start`]);
  const [holder, other] = next === 'b' ? [b, c] : [c, b];
  await holder.stop();
  await until(() => other.held());
  await other.stop();
  const last = next === 'b' ? 'c' : 'b';
  assert.deepEqual(events, ['a start', 'a stop', `${next} start`, `${next} stop`, `${last} start`, `${last} stop`]);
  await bus.close();
});

test('a lease lost while its job is still starting stops the job once it has started', async () => {
  const bus = new MemoryBus({ clientId: 'lease' });
  await bus.ensureTopics([{ name: 't', partitions: 1 }]);
  const events: string[] = [];
  let started: () => void = () => undefined;
  const lease = await holdLease(bus, {
    groupId: 'g',
    topic: 't',
    onAcquired: async () => {
      events.push('starting');
      await new Promise<void>((r) => (started = r));
      events.push('started');
      return async () => void events.push('stopped');
    },
  });
  await until(() => events.length === 1);
  const stopping = lease.stop();
  started();
  await stopping;
  assert.deepEqual(events, ['starting', 'started', 'stopped']);
  assert.equal(lease.held(), false);
  await bus.close();
});
