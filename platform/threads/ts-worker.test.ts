import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { startTsWorker } from './ts-worker.ts';

const ENTRY = new URL('./testing/thread-name-entry.ts', import.meta.url);

/** The entry's message: its thread name, workerData and young generation (MB). */
async function reportOf(
  ...limits: [] | [{ maxYoungGenerationSizeMb: number }]
): Promise<{ comm: string; workerData: unknown; youngMb: number }> {
  const worker = startTsWorker(ENTRY, { n: 7 }, 'gex-thread-name-test', ...limits);
  try {
    const [message] = (await once(worker, 'message')) as [{ comm: string; workerData: unknown; youngMb: number }];
    return message;
  } finally {
    await worker.terminate();
  }
}

test('a TypeScript entry runs on its own thread, named after the worker (first 15 bytes), with its workerData', async () => {
  const { comm, workerData } = await reportOf();
  assert.deepEqual({ comm, workerData }, { comm: 'gex-thread-name', workerData: { n: 7 } });
});

test('resource limits given reach the thread (its young generation); none given leaves V8 its own, larger', async () => {
  const given = await reportOf({ maxYoungGenerationSizeMb: 6 });
  assert.equal(given.youngMb, 6);
  const own = await reportOf();
  assert.ok(own.youngMb > 6, `V8's own young generation (${own.youngMb} MB) is larger`);
});
