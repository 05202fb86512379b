import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { startTsWorker } from './ts-worker.ts';

test('a TypeScript entry runs on its own thread, named after the worker (first 15 bytes), with its workerData', async () => {
  const worker = startTsWorker(new URL('./testing/thread-name-entry.ts', import.meta.url), { n: 7 }, 'gex-thread-name-test');
  try {
    const [message] = (await once(worker, 'message')) as [{ comm: string; workerData: unknown }];
    assert.deepEqual(message, { comm: 'gex-thread-name', workerData: { n: 7 } });
  } finally {
    await worker.terminate();
  }
});
