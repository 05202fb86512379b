import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DeferredCommits } from './deferred-commits.ts';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A gate per question, answered by the test. */
class Gates {
  readonly asked: { partition: number; lastOffset: string; signal: AbortSignal; open: () => void; fail: () => void }[] = [];
  readonly gate = (_topic: string, partition: number, lastOffset: string, signal: AbortSignal): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      this.asked.push({ partition, lastOffset, signal, open: resolve, fail: () => reject(new Error('gate gave up')) });
      signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
    });
}

test('DeferredCommits: one question at a time per partition, the newest handled offset next; commits only move forward', async () => {
  const gates = new Gates();
  const commits: string[] = [];
  const d = new DeferredCommits(
    gates.gate,
    async (topic, partition, next) => void commits.push(`${topic}/${partition}@${next}`),
    () => {},
  );
  d.handled('t', 0, '9');
  d.handled('t', 0, '19');
  d.handled('t', 1, '4');
  d.handled('t', 0, '29');
  assert.deepEqual(
    gates.asked.map((a) => [a.partition, a.lastOffset]),
    [
      [0, '9'],
      [1, '4'],
    ],
  );
  gates.asked[0]?.open();
  await sleep(5);
  assert.deepEqual(commits, ['t/0@10']);
  assert.deepEqual(gates.asked[2] && [gates.asked[2].partition, gates.asked[2].lastOffset], [0, '29'], 'then the newest of partition 0');
  gates.asked[2]?.open();
  gates.asked[1]?.open();
  await d.settled();
  assert.deepEqual(commits.sort(), ['t/0@10', 't/0@30', 't/1@5']);
  assert.equal(gates.asked.length, 3, 'offsets 19 and 29 were covered by one question');
});

test('DeferredCommits: a failed commit is retried and reported; a gate that gives up leaves the offset to the next handled batch', async () => {
  const gates = new Gates();
  let failures = 2;
  const commits: bigint[] = [];
  const errors: string[] = [];
  const d = new DeferredCommits(
    gates.gate,
    async (_t, _p, next) => {
      if (failures-- > 0) throw new Error('broker away');
      commits.push(next);
    },
    (err, topic, partition) => errors.push(`${topic}/${partition}: ${(err as Error).message}`),
    10,
  );
  d.handled('t', 0, '4');
  gates.asked[0]?.open();
  await d.settled();
  assert.deepEqual(commits, [5n]);
  assert.deepEqual(errors, ['t/0: broker away', 't/0: broker away']);

  d.handled('t', 0, '7');
  gates.asked[1]?.fail();
  await d.settled();
  assert.deepEqual(commits, [5n], 'nothing committed after the gate gave up');
  d.handled('t', 0, '8');
  assert.equal(gates.asked[2]?.lastOffset, '8', 'the next handled batch asks again');
  gates.asked[2]?.open();
  await d.settled();
  assert.deepEqual(commits, [5n, 9n]);
});

test('DeferredCommits: retain() aborts the gates of partitions no longer owned; abandon() aborts all', async () => {
  const gates = new Gates();
  const commits: string[] = [];
  const d = new DeferredCommits(
    gates.gate,
    async (t, p, next) => void commits.push(`${t}/${p}@${next}`),
    () => {},
  );
  d.handled('t', 0, '1');
  d.handled('t', 1, '1');
  d.retain([{ topic: 't', partition: 1 }]);
  assert.equal(gates.asked[0]?.signal.aborted, true, 'partition 0 moved away');
  assert.equal(gates.asked[1]?.signal.aborted, false);
  gates.asked[1]?.open();
  await d.settled();
  assert.deepEqual(commits, ['t/1@2']);
  d.handled('t', 1, '5');
  d.abandon();
  assert.equal(gates.asked[2]?.signal.aborted, true);
  await d.settled();
  assert.deepEqual(commits, ['t/1@2'], 'nothing committed after abandon()');
});
