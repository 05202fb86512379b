import { test } from 'node:test';
import assert from 'node:assert/strict';
import kafkajs from 'kafkajs';
import { MemoryBus } from '#bus/memory-bus.ts';
import type { Bus } from '#bus/types.ts';
import { AbortedError, CommittedOffsetsWatch, waitDrained } from './durability.ts';

/**
 * The durability waits over the in-process bus with offset look-ups failing as KafkaJS fails them during a broker
 * outage (the errors process-a and process-b died of in the chaos run). The real-broker outage is the Kafka suite's.
 */
function outageBus(inner: MemoryBus, failing: { now: boolean }, errors: Error[]): Bus {
  return {
    kind: inner.kind,
    ensureTopics: (t) => inner.ensureTopics(t),
    publish: (t, m) => inner.publish(t, m),
    subscribe: (o) => inner.subscribe(o),
    close: () => inner.close(),
    lag: async (g, t) => {
      if (failing.now) {
        const e =
          errors.length % 2 === 0
            ? // The typings omit the runtime's (message) argument.
              new (kafkajs.KafkaJSGroupCoordinatorNotFound as unknown as new (m: string) => Error)('Failed to find group coordinator')
            : new kafkajs.KafkaJSConnectionError('Connection error: connect ECONNREFUSED 127.0.0.1:9092');
        errors.push(e);
        throw e;
      }
      return inner.lag(g, t);
    },
  };
}

const msg = (i: number) => ({ key: `k${i}`, value: Buffer.from(String(i)) });

test('waitDrained: an outage for the whole wait ends it unconfirmed (false), every failure reported, no exception', async () => {
  const inner = new MemoryBus();
  await inner.ensureTopics([{ name: 'raw', partitions: 1 }]);
  await inner.publish('raw', [msg(1)]);
  const errors: Error[] = [];
  const seen: unknown[] = [];
  const bus = outageBus(inner, { now: true }, errors);
  const started = Date.now();
  const ok = await waitDrained(bus, 'writer', ['raw'], 1_200, new AbortController().signal, 25, (e) => seen.push(e));
  assert.equal(ok, false);
  assert.ok(Date.now() - started >= 1_150, 'waited until the deadline');
  assert.ok(seen.length >= 2 && seen.length === errors.length, `${seen.length} look-ups failed and were reported`);
  assert.deepEqual([...new Set(errors.map((e) => e.name))].sort(), ['KafkaJSConnectionError', 'KafkaJSGroupCoordinatorNotFound']);
  await inner.close();
});

test('waitDrained: an outage that ends before the deadline still confirms the drain once the writer committed', async () => {
  const inner = new MemoryBus();
  await inner.ensureTopics([{ name: 'raw', partitions: 1 }]);
  await inner.publish('raw', [msg(1), msg(2)]);
  const failing = { now: true };
  const bus = outageBus(inner, failing, []);
  const writer = await inner.subscribe({ groupId: 'writer', topics: ['raw'], eachBatch: async () => {} });
  setTimeout(() => (failing.now = false), 600);
  assert.equal(await waitDrained(bus, 'writer', ['raw'], 10_000, new AbortController().signal), true);
  await writer.stop();
  await inner.close();
});

test('CommittedOffsetsWatch: retries through the outage and resolves on the commit; partitions share one look-up loop; aborts on stop', async () => {
  const inner = new MemoryBus();
  await inner.ensureTopics([{ name: 'raw', partitions: 2 }]);
  await inner.publish(
    'raw',
    Array.from({ length: 20 }, (_, i) => msg(i)),
  );
  const failing = { now: true };
  const errors: Error[] = [];
  const outage = outageBus(inner, failing, errors);
  let lookups = 0;
  const bus: Bus = { ...outage, lag: (g, t) => (lookups++, outage.lag(g, t)) };
  const reported: string[] = [];
  const watch = new CommittedOffsetsWatch(bus, 'writer', new AbortController().signal, 25, (_err, topic) => reported.push(topic));
  const ends = (await inner.lag('writer', 'raw')).map((p) => Number(p.end));
  assert.ok(ends.length === 2 && ends.every((e) => e > 0), `both partitions hold messages: ${ends.join(', ')}`);
  const never = new AbortController().signal;
  const both = Promise.all([watch.waitPast('raw', 0, '0', never), watch.waitPast('raw', 1, '0', never)]);
  setTimeout(() => (failing.now = false), 1_200);
  const writer = await inner.subscribe({ groupId: 'writer', topics: ['raw'], eachBatch: async () => {} });
  const started = Date.now();
  await both;
  assert.ok(Date.now() - started >= 1_000, 'nothing resolved before the look-ups answered');
  assert.ok(errors.length >= 2, 'look-ups failed during the outage and were retried');
  assert.equal(reported.length, errors.length, 'every failed look-up reported');
  assert.ok(reported.every((t) => t === 'raw'));
  // Two partitions waited through ~1.2 s of outage (a retry every 500 ms) and the commit: one loop, not two.
  assert.ok(lookups <= errors.length + 3, `${lookups} look-ups for ${errors.length} failures`);

  failing.now = true;
  const stop = new AbortController();
  setTimeout(() => stop.abort(), 300);
  await assert.rejects(watch.waitPast('raw', 0, '500', stop.signal), AbortedError);
  await assert.rejects(watch.waitPast('raw', 0, '500', stop.signal), AbortedError, 'an aborted signal rejects at once');
  await writer.stop();
  await inner.close();
});

test('waitDrained: a look-up that hangs past the deadline (KafkaJS retrying while the broker restarts) ends the wait at the deadline, unconfirmed and reported', async () => {
  const inner = new MemoryBus();
  await inner.ensureTopics([{ name: 'raw', partitions: 1 }]);
  await inner.publish('raw', [msg(1)]);
  const writer = await inner.subscribe({ groupId: 'writer', topics: ['raw'], eachBatch: async () => {} });
  // The broker answers again 1.5 s into a 600 ms wait, and the writer has drained by then: only the deadline can end the wait.
  const hanging: Bus = {
    ...outageBus(inner, { now: false }, []),
    lag: (g, t) => new Promise((resolve, reject) => setTimeout(() => inner.lag(g, t).then(resolve, reject), 1_500)),
  };
  const seen: unknown[] = [];
  const started = Date.now();
  const ok = await waitDrained(hanging, 'writer', ['raw'], 600, new AbortController().signal, 25, (e) => seen.push(e));
  const took = Date.now() - started;
  assert.equal(ok, false);
  assert.ok(took >= 590 && took < 1_000, `ended at its deadline: ${took} ms`);
  assert.equal(seen.length, 1);
  assert.match(String(seen[0]), /timed out after/);
  await new Promise((r) => setTimeout(r, 1_000));
  await writer.stop();
  await inner.close();
});

test('waitDrained: no look-up is started with no time left (a look-up that hung to the deadline, then the other topics): one failure, not one per topic', async () => {
  const inner = new MemoryBus();
  await inner.ensureTopics([
    { name: 'raw', partitions: 1 },
    { name: 'raw2', partitions: 1 },
  ]);
  const writer = await inner.subscribe({ groupId: 'writer', topics: ['raw', 'raw2'], eachBatch: async () => {} });
  let calls = 0;
  const hanging: Bus = {
    ...outageBus(inner, { now: false }, []),
    lag: (g, t) => {
      calls++;
      return new Promise((resolve, reject) => setTimeout(() => inner.lag(g, t).then(resolve, reject), 1_500));
    },
  };
  const seen: unknown[] = [];
  const started = Date.now();
  const ok = await waitDrained(hanging, 'writer', ['raw', 'raw2'], 400, new AbortController().signal, 25, (e) => seen.push(e));
  const took = Date.now() - started;
  assert.equal(ok, false);
  assert.ok(took >= 390 && took < 800, `ended at its deadline: ${took} ms`);
  assert.equal(calls, 1, 'the second topic is not looked up with nothing left of the wait');
  assert.equal(seen.length, 1);
  await new Promise((r) => setTimeout(r, 1_600));
  await writer.stop();
  await inner.close();
});
