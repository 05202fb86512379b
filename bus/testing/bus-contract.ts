import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Bus, BusConsumer, BusMessage, ConsumedBatch, ConsumedMessage } from '../types.ts';
import { isCrashable } from '../crashable.ts';
import { partitionForKey } from '../murmur2.ts';

/**
 * The bus contract (bus/types.ts) as one test suite, run against every implementation: the in-process bus
 * (memory-bus.test.ts) and real Kafka (kafka-bus.kafka.test.ts). Topic and group names get a random suffix so
 * reruns against one broker are independent.
 */

export interface ContractOptions {
  /** Upper bound for one wait (group joins and rebalances on Kafka take seconds). Default 30 s. */
  readonly waitMs?: number;
  /** How long "nothing more arrives" is watched. Default 300 ms. */
  readonly quietMs?: number;
}

const uid = (): string => randomBytes(4).toString('hex');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function msg(key: string, n: number): BusMessage {
  return { key, value: Buffer.from(JSON.stringify({ key, n })), headers: { n: String(n) } };
}

function seqOf(m: ConsumedMessage): number {
  return Number(m.headers.n);
}

async function waitFor(what: string, predicate: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`);
    await sleep(20);
  }
}

/** Records every delivered batch. */
class Recorder {
  readonly batches: ConsumedBatch[] = [];
  get messages(): ConsumedMessage[] {
    return this.batches.flatMap((b) => b.messages);
  }
  seqs(): Set<number> {
    return new Set(this.messages.map(seqOf));
  }
  readonly handler = async (batch: ConsumedBatch): Promise<void> => {
    this.batches.push(batch);
  };
}

async function withBus(makeBus: () => Bus | Promise<Bus>, body: (bus: Bus) => Promise<void>): Promise<void> {
  const bus = await makeBus();
  try {
    await body(bus);
  } finally {
    await bus.close();
  }
}

/** A gate that stays closed until `open()`; a wait rejects when its signal is aborted. */
class Latch {
  private opened = false;
  private readonly waiters = new Set<() => void>();
  open(): void {
    this.opened = true;
    for (const w of this.waiters) w();
    this.waiters.clear();
  }
  wait(signal: AbortSignal): Promise<void> {
    if (this.opened) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const done = (): void => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = (): void => {
        this.waiters.delete(done);
        reject(new Error('gate aborted'));
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.add(done);
    });
  }
}

function sortedParts(c: BusConsumer): number[] {
  return c
    .assignments()
    .map((a) => a.partition)
    .sort((a, b) => a - b);
}

export function runBusContract(name: string, makeBus: () => Bus | Promise<Bus>, options: ContractOptions = {}): void {
  const waitMs = options.waitMs ?? 30_000;
  const quietMs = options.quietMs ?? 300;

  describe(`bus contract: ${name}`, () => {
    test('per-key order across many keys and partitions; partition = murmur2(key) % n', async () => {
      await withBus(makeBus, async (bus) => {
        const topic = `contract.order.${uid()}`;
        await bus.ensureTopics([{ name: topic, partitions: 6 }]);
        await bus.ensureTopics([{ name: topic, partitions: 6 }]); // idempotent
        const keys = Array.from({ length: 50 }, (_, i) => `key-${i}`);
        const perKey = 40;
        for (let round = 0; round < perKey; round += 4) {
          const batch: BusMessage[] = [];
          for (let r = round; r < round + 4; r++) for (const key of keys) batch.push(msg(key, r));
          await bus.publish(topic, batch);
        }
        const rec = new Recorder();
        const consumer = await bus.subscribe({ groupId: `g.order.${uid()}`, topics: [topic], maxBatchSize: 100, eachBatch: rec.handler });
        await waitFor('2000 messages', () => rec.messages.length >= keys.length * perKey, waitMs);
        await consumer.stop();

        assert.equal(rec.messages.length, keys.length * perKey);
        const seen = new Map<string, number[]>();
        for (const b of rec.batches) {
          assert.ok(b.messages.length >= 1 && b.messages.length <= 100, `batch size ${b.messages.length}`);
          for (const m of b.messages) {
            assert.equal(m.topic, topic);
            assert.equal(m.partition, b.partition, 'a batch holds one partition');
            assert.equal(m.partition, partitionForKey(m.key, 6), `partition of ${m.key}`);
            const list = seen.get(m.key) ?? [];
            list.push(seqOf(m));
            seen.set(m.key, list);
          }
        }
        const expected = Array.from({ length: perKey }, (_, i) => i);
        for (const key of keys) assert.deepEqual(seen.get(key), expected, `order of ${key}`);
        // Offsets are consecutive per partition, starting at 0.
        const byPartition = new Map<number, number[]>();
        for (const m of rec.messages) byPartition.set(m.partition, [...(byPartition.get(m.partition) ?? []), Number(m.offset)]);
        for (const [p, offsets] of byPartition)
          assert.deepEqual(
            offsets,
            offsets.map((_, i) => i),
            `offsets of partition ${p}`,
          );
        assert.ok(byPartition.size >= 5, `50 keys spread over ${byPartition.size} of 6 partitions`);
        const lag = await bus.lag(consumer.groupId, topic);
        assert.equal(lag.length, 6);
        for (const row of lag) assert.equal(row.committed, row.end, `partition ${row.partition} fully committed`);
        assert.equal(
          lag.reduce((s, r) => s + Number(r.end), 0),
          2000,
        );
      });
    });

    test('partitionsConcurrently: several partitions in the handler at once, one partition never twice, its batches in order', async () => {
      await withBus(makeBus, async (bus) => {
        const topic = `contract.concurrent.${uid()}`;
        await bus.ensureTopics([{ name: topic, partitions: 4 }]);
        const keys = Array.from({ length: 40 }, (_, i) => `key-${i}`);
        const perKey = 20;
        for (let r = 0; r < perKey; r++)
          await bus.publish(
            topic,
            keys.map((k) => msg(k, r)),
          );
        const inHandler = new Set<number>();
        let most = 0;
        let overlap = false;
        const seen = new Map<string, number[]>();
        let count = 0;
        const consumer = await bus.subscribe({
          groupId: `g.concurrent.${uid()}`,
          topics: [topic],
          maxBatchSize: 30,
          partitionsConcurrently: 4,
          eachBatch: async (b) => {
            if (inHandler.has(b.partition)) overlap = true;
            inHandler.add(b.partition);
            most = Math.max(most, inHandler.size);
            await sleep(30); // long enough for the other partitions' batches to arrive meanwhile
            for (const m of b.messages) seen.set(m.key, [...(seen.get(m.key) ?? []), seqOf(m)]);
            count += b.messages.length;
            inHandler.delete(b.partition);
          },
        });
        await waitFor(`${keys.length * perKey} messages`, () => count >= keys.length * perKey, waitMs);
        await consumer.stop();
        assert.equal(overlap, false, 'a partition was in the handler twice at once');
        assert.ok(most >= 2, `at most ${most} partition(s) in the handler at once`);
        const expected = Array.from({ length: perKey }, (_, i) => i);
        for (const key of keys) assert.deepEqual(seen.get(key), expected, `order of ${key}`);
      });
    });

    test('two members share the partitions; when one leaves the other takes over and gets the rest', async () => {
      await withBus(makeBus, async (bus) => {
        const topic = `contract.share.${uid()}`;
        const groupId = `g.share.${uid()}`;
        await bus.ensureTopics([{ name: topic, partitions: 4 }]);
        const rec1 = new Recorder();
        const rec2 = new Recorder();
        const c1 = await bus.subscribe({ groupId, topics: [topic], eachBatch: rec1.handler });
        await waitFor('c1 owns 4 partitions', () => c1.assignments().length === 4, waitMs);
        const c2 = await bus.subscribe({ groupId, topics: [topic], eachBatch: rec2.handler });
        await waitFor('2 + 2 split', () => c1.assignments().length === 2 && c2.assignments().length === 2, waitMs);
        assert.deepEqual([...sortedParts(c1), ...sortedParts(c2)].sort(), [0, 1, 2, 3]);

        const first = Array.from({ length: 400 }, (_, i) => msg(`k${i % 40}`, i));
        await bus.publish(topic, first);
        await waitFor('400 shared', () => rec1.seqs().size + rec2.seqs().size >= 400, waitMs);
        const own1 = new Set(sortedParts(c1));
        const own2 = new Set(sortedParts(c2));
        assert.ok(rec1.messages.length > 0 && rec2.messages.length > 0, 'both members received messages');
        for (const m of rec1.messages) assert.ok(own1.has(m.partition), `c1 got partition ${m.partition}`);
        for (const m of rec2.messages) assert.ok(own2.has(m.partition), `c2 got partition ${m.partition}`);

        await c2.stop();
        assert.deepEqual(c2.assignments(), []);
        await waitFor('c1 takes over all 4', () => c1.assignments().length === 4, waitMs);
        const second = Array.from({ length: 400 }, (_, i) => msg(`k${i % 40}`, 400 + i));
        await bus.publish(topic, second);
        await waitFor('all 800', () => new Set([...rec1.seqs(), ...rec2.seqs()]).size >= 800, waitMs);
        for (let n = 400; n < 800; n++) assert.ok(rec1.seqs().has(n), `c1 received ${n}`);
        await sleep(quietMs);
        // c2 committed what it handled before leaving: nothing of the first 400 is delivered twice.
        assert.equal(rec1.messages.length + rec2.messages.length, 800);
        await c1.stop();
      });
    });

    test('committed offsets survive a consumer restart: nothing re-read, nothing lost', async () => {
      await withBus(makeBus, async (bus) => {
        const topic = `contract.resume.${uid()}`;
        const groupId = `g.resume.${uid()}`;
        await bus.ensureTopics([{ name: topic, partitions: 3 }]);
        await bus.publish(
          topic,
          Array.from({ length: 100 }, (_, i) => msg(`k${i % 7}`, i)),
        );
        const recA = new Recorder();
        const a = await bus.subscribe({ groupId, topics: [topic], maxBatchSize: 10, eachBatch: recA.handler });
        await waitFor('first 100', () => recA.messages.length >= 100, waitMs);
        await a.stop();
        assert.equal(recA.messages.length, 100);

        await bus.publish(
          topic,
          Array.from({ length: 50 }, (_, i) => msg(`k${i % 7}`, 100 + i)),
        );
        const recB = new Recorder();
        const b = await bus.subscribe({ groupId, topics: [topic], eachBatch: recB.handler });
        await waitFor('next 50', () => recB.messages.length >= 50, waitMs);
        await sleep(quietMs);
        await b.stop();
        assert.deepEqual(
          [...recB.seqs()].sort((x, y) => x - y),
          Array.from({ length: 50 }, (_, i) => 100 + i),
        );
        assert.equal(recB.messages.length, 50);
        const lag = await bus.lag(groupId, topic);
        for (const row of lag) assert.equal(row.committed, row.end);
      });
    });

    test('a handler that throws commits nothing and its batch is delivered again', async () => {
      await withBus(makeBus, async (bus) => {
        const topic = `contract.retry.${uid()}`;
        await bus.ensureTopics([{ name: topic, partitions: 1 }]);
        await bus.publish(
          topic,
          Array.from({ length: 30 }, (_, i) => msg('one-key', i)),
        );
        const deliveries: number[][] = [];
        let failed = false;
        const consumer = await bus.subscribe({
          groupId: `g.retry.${uid()}`,
          topics: [topic],
          maxBatchSize: 10,
          eachBatch: async (batch) => {
            const seqs = batch.messages.map(seqOf);
            deliveries.push(seqs);
            if (!failed && seqs.includes(15)) {
              failed = true;
              throw new Error('handler failure (test)');
            }
          },
        });
        await waitFor('29 delivered after the failure', () => deliveries.flat().includes(29) && failed, waitMs);
        await consumer.stop();
        const flat = deliveries.flat();
        const failedAt = deliveries.findIndex((d) => d.includes(15));
        const failedBatch = deliveries[failedAt] ?? [];
        const retried = deliveries[failedAt + 1] ?? [];
        assert.equal(retried[0], failedBatch[0], 'the next delivery restarts at the failed batch');
        assert.equal(flat.filter((n) => n === 15).length, 2, 'message 15 arrives twice');
        assert.deepEqual(
          [...new Set(flat)].sort((x, y) => x - y),
          Array.from({ length: 30 }, (_, i) => i),
        );
        const lag = await bus.lag(consumer.groupId, topic);
        assert.deepEqual(
          lag.map((r) => [r.committed, r.end]),
          [['30', '30']],
        );
      });
    });

    test('a member killed mid-batch leaves its uncommitted messages to the remaining member', async () => {
      await withBus(makeBus, async (bus) => {
        const topic = `contract.crash.${uid()}`;
        const groupId = `g.crash.${uid()}`;
        await bus.ensureTopics([{ name: topic, partitions: 2 }]);
        let release: () => void = () => undefined;
        const stuck = new Promise<void>((r) => {
          release = r;
        });
        const recVictim = new Recorder();
        const victim = await bus.subscribe({
          groupId,
          topics: [topic],
          eachBatch: async (batch) => {
            await recVictim.handler(batch);
            await stuck; // never finishes before the crash
          },
        });
        await waitFor('victim owns 2', () => victim.assignments().length === 2, waitMs);
        const recSurvivor = new Recorder();
        const survivor = await bus.subscribe({ groupId, topics: [topic], eachBatch: recSurvivor.handler });
        await waitFor('1 + 1 split', () => victim.assignments().length === 1 && survivor.assignments().length === 1, waitMs);
        const victimPartition = victim.assignments()[0]?.partition;

        await bus.publish(
          topic,
          Array.from({ length: 200 }, (_, i) => msg(`k${i % 20}`, i)),
        );
        await waitFor('victim holds a batch', () => recVictim.batches.length === 1, waitMs);
        const inFlight = recVictim.messages.map(seqOf);
        assert.ok(inFlight.length > 0);
        assert.ok(isCrashable(victim), 'consumer supports crash()');
        await victim.crash();
        release(); // the dead member's handler finishing late must not commit

        await waitFor('survivor gets everything', () => recSurvivor.seqs().size >= 200, waitMs);
        for (const n of inFlight) assert.ok(recSurvivor.seqs().has(n), `redelivered ${n}`);
        assert.ok(
          recSurvivor.messages.some((m) => m.partition === victimPartition),
          'survivor took the dead partition',
        );
        await survivor.stop();
        const lag = await bus.lag(groupId, topic);
        for (const row of lag) assert.equal(row.committed, row.end);
        assert.equal(
          lag.reduce((s, r) => s + Number(r.end), 0),
          200,
        );
      });
    });

    test('pause stops delivery and resume continues', async () => {
      await withBus(makeBus, async (bus) => {
        const topic = `contract.pause.${uid()}`;
        await bus.ensureTopics([{ name: topic, partitions: 2 }]);
        const rec = new Recorder();
        const consumer = await bus.subscribe({ groupId: `g.pause.${uid()}`, topics: [topic], eachBatch: rec.handler });
        await bus.publish(
          topic,
          Array.from({ length: 10 }, (_, i) => msg(`k${i}`, i)),
        );
        await waitFor('first 10', () => rec.messages.length >= 10, waitMs);
        consumer.pause();
        assert.equal(consumer.isPaused(), true);
        await bus.publish(
          topic,
          Array.from({ length: 10 }, (_, i) => msg(`k${i}`, 10 + i)),
        );
        await sleep(Math.max(quietMs, 1000));
        assert.equal(rec.messages.length, 10, 'nothing delivered while paused');
        consumer.resume();
        assert.equal(consumer.isPaused(), false);
        await waitFor('all 20 after resume', () => rec.messages.length >= 20, waitMs);
        await sleep(quietMs);
        assert.equal(rec.messages.length, 20);
        assert.deepEqual(
          [...rec.seqs()].sort((a, b) => a - b),
          Array.from({ length: 20 }, (_, i) => i),
        );
        await consumer.stop();
      });
    });

    test('stop() finishes and commits the in-flight batch', async () => {
      await withBus(makeBus, async (bus) => {
        const topic = `contract.stop.${uid()}`;
        const groupId = `g.stop.${uid()}`;
        await bus.ensureTopics([{ name: topic, partitions: 1 }]);
        await bus.publish(
          topic,
          Array.from({ length: 5 }, (_, i) => msg('k', i)),
        );
        let release: () => void = () => undefined;
        const gate = new Promise<void>((r) => {
          release = r;
        });
        const rec = new Recorder();
        let finished = false;
        const consumer = await bus.subscribe({
          groupId,
          topics: [topic],
          eachBatch: async (batch) => {
            await rec.handler(batch);
            await gate;
            finished = true;
          },
        });
        await waitFor('batch in flight', () => rec.batches.length === 1, waitMs);
        const stopping = consumer.stop();
        await sleep(200);
        assert.equal(finished, false);
        release();
        await stopping;
        assert.equal(finished, true);
        assert.deepEqual(rec.messages.map(seqOf), [0, 1, 2, 3, 4]);
        assert.deepEqual(
          (await bus.lag(groupId, topic)).map((r) => [r.committed, r.end]),
          [['5', '5']],
        );

        await bus.publish(topic, [msg('k', 5)]);
        const next = new Recorder();
        const again = await bus.subscribe({ groupId, topics: [topic], eachBatch: next.handler });
        await waitFor('the new message', () => next.messages.length >= 1, waitMs);
        await sleep(quietMs);
        assert.deepEqual(next.messages.map(seqOf), [5]);
        await again.stop();
      });
    });

    test('commitGate: batches keep coming while their commit waits; the commit lands when the gate opens and covers the batches before it', async () => {
      await withBus(makeBus, async (bus) => {
        const topic = `contract.gate.${uid()}`;
        const groupId = `g.gate.${uid()}`;
        await bus.ensureTopics([{ name: topic, partitions: 1 }]);
        await bus.publish(
          topic,
          Array.from({ length: 50 }, (_, i) => msg('k', i)),
        );
        const gate = new Latch();
        const asked: string[] = [];
        const rec = new Recorder();
        const consumer = await bus.subscribe({
          groupId,
          topics: [topic],
          maxBatchSize: 10,
          eachBatch: rec.handler,
          commitGate: async (t, partition, lastOffset, signal) => {
            assert.equal(t, topic);
            assert.equal(partition, 0);
            asked.push(lastOffset);
            await gate.wait(signal);
          },
        });
        await waitFor('all 50 handled with the gate closed', () => rec.messages.length >= 50, waitMs);
        assert.deepEqual(
          rec.messages.map(seqOf),
          Array.from({ length: 50 }, (_, i) => i),
        );
        assert.equal(asked.length, 1, `one question at a time: ${asked.join(', ')}`);
        assert.ok(Number(asked[0]) <= 9, `asked first for the first batch's last offset, ${asked[0]}`);
        const [closed] = await bus.lag(groupId, topic);
        assert.ok(Number(closed?.committed) <= 0, `nothing committed with the gate closed: ${closed?.committed}`);

        gate.open();
        await waitFor('committed 50', async () => (await bus.lag(groupId, topic))[0]?.committed === '50', waitMs);
        assert.equal(asked[asked.length - 1], '49');
        assert.ok(asked.length <= 3, `a commit covers the batches handled before it: ${asked.join(', ')}`);
        await consumer.stop();
        assert.equal(rec.messages.length, 50, 'nothing delivered twice');
      });
    });

    test('commitGate: stop() waits for a pending commit; crash() abandons it and the next member gets those messages again', async () => {
      await withBus(makeBus, async (bus) => {
        const topic = `contract.gate-stop.${uid()}`;
        const groupId = `g.gate-stop.${uid()}`;
        await bus.ensureTopics([{ name: topic, partitions: 1 }]);
        await bus.publish(
          topic,
          Array.from({ length: 5 }, (_, i) => msg('k', i)),
        );
        const gate = new Latch();
        const rec = new Recorder();
        const first = await bus.subscribe({
          groupId,
          topics: [topic],
          eachBatch: rec.handler,
          commitGate: (_t, _p, _o, signal) => gate.wait(signal),
        });
        await waitFor('5 handled', () => rec.messages.length >= 5, waitMs);
        let stopped = false;
        const stopping = first.stop().then(() => (stopped = true));
        await sleep(300);
        assert.equal(stopped, false, 'stop() waits for the pending commit');
        gate.open();
        await stopping;
        assert.deepEqual(
          (await bus.lag(groupId, topic)).map((r) => [r.committed, r.end]),
          [['5', '5']],
        );

        await bus.publish(
          topic,
          Array.from({ length: 5 }, (_, i) => msg('k', 5 + i)),
        );
        const closed = new Latch();
        const recVictim = new Recorder();
        const victim = await bus.subscribe({
          groupId,
          topics: [topic],
          eachBatch: recVictim.handler,
          commitGate: (_t, _p, _o, signal) => closed.wait(signal),
        });
        await waitFor('5..9 handled', () => recVictim.messages.length >= 5, waitMs);
        assert.ok(isCrashable(victim));
        await victim.crash();
        const recNext = new Recorder();
        const next = await bus.subscribe({ groupId, topics: [topic], eachBatch: recNext.handler });
        await waitFor('5..9 again', () => recNext.messages.length >= 5, waitMs);
        await next.stop();
        assert.deepEqual(recNext.messages.map(seqOf), [5, 6, 7, 8, 9]);
        assert.deepEqual(
          (await bus.lag(groupId, topic)).map((r) => [r.committed, r.end]),
          [['10', '10']],
        );
      });
    });

    test('commitGate: a partition that moves to another member before its commit landed is delivered again to the new owner', async () => {
      await withBus(makeBus, async (bus) => {
        const topic = `contract.gate-move.${uid()}`;
        const groupId = `g.gate-move.${uid()}`;
        await bus.ensureTopics([{ name: topic, partitions: 2 }]);
        const gate = new Latch();
        const recA = new Recorder();
        const a = await bus.subscribe({
          groupId,
          topics: [topic],
          eachBatch: recA.handler,
          commitGate: (_t, _p, _o, signal) => gate.wait(signal),
        });
        await waitFor('a owns 2', () => a.assignments().length === 2, waitMs);
        await bus.publish(
          topic,
          Array.from({ length: 40 }, (_, i) => msg(`k${i % 8}`, i)),
        );
        await waitFor('a handled all 40', () => recA.messages.length >= 40, waitMs);
        const recB = new Recorder();
        const b = await bus.subscribe({ groupId, topics: [topic], eachBatch: recB.handler });
        await waitFor('1 + 1 split', () => a.assignments().length === 1 && b.assignments().length === 1, waitMs);
        const moved = b.assignments()[0]?.partition;
        const expected = recA.messages.filter((m) => m.partition === moved).map(seqOf);
        assert.ok(expected.length > 0, 'the moved partition held messages');
        await waitFor('b got the moved partition again', () => recB.messages.length >= expected.length, waitMs);
        assert.deepEqual(recB.messages.map(seqOf), expected);
        gate.open();
        await a.stop();
        await b.stop();
        for (const row of await bus.lag(groupId, topic)) assert.equal(row.committed, row.end, `partition ${row.partition} committed`);
      });
    });
  });
}
