/**
 * bench/thread-cpu.ts on this process's real threads (Linux /proc): a worker thread's CPU between two samples is
 * counted under its name, and a thread renamed between the samples (as the store's engine renames its pool threads)
 * counts only what it used between them, under its new name, not its whole past.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { threadCpu, threadCpuSince } from './thread-cpu.ts';

/**
 * A worker that, on a message `ms`, spins until its own thread has used `ms` more of CPU (its /proc stat, in ticks of
 * 10 ms: exact however busy the machine is), then posts its thread id.
 */
const SPINNER = `
const { parentPort } = require('node:worker_threads');
const { readFileSync, readlinkSync } = require('node:fs');
const ticks = () => { const f = readFileSync('/proc/thread-self/stat', 'utf8'); const a = f.slice(f.lastIndexOf(')') + 2).split(' '); return Number(a[11]) + Number(a[12]); };
parentPort.on('message', (ms) => {
  const end = ticks() + ms / 10;
  let x = 0;
  while (ticks() < end) for (let i = 0; i < 1e5; i++) x += Math.sqrt(x + i);
  parentPort.postMessage(readlinkSync('/proc/thread-self').split('/').pop());
});
`;

const secondsOf = (line: string, name: string): number => {
  const m = new RegExp(`(?:^|, )${name} (\\d+\\.\\d+)`).exec(line);
  return m === null ? 0 : Number(m[1]);
};

test(
  'CPU between two samples, by thread, under the name each thread has at the end',
  { skip: !existsSync('/proc/self/task') },
  async () => {
    const worker = new Worker(SPINNER, { eval: true });
    const spin = (ms: number) =>
      new Promise<string>((resolve) => {
        worker.once('message', resolve);
        worker.postMessage(ms);
      });
    try {
      // The worker's past: 0.6 s of CPU under its first name.
      const tid = await spin(600);
      writeFileSync(`/proc/self/task/${tid}/comm`, 'cpu-test-a');
      const before = threadCpu();
      // Renamed, then 0.3 s more: only those count, under the new name.
      writeFileSync(`/proc/self/task/${tid}/comm`, 'cpu-test-b');
      await spin(300);
      const line = threadCpuSince(before);
      const b = secondsOf(line, 'cpu-test-b');
      assert.ok(b >= 0.28 && b <= 0.4, `the renamed thread's CPU between the samples: ${line}`);
      assert.equal(secondsOf(line, 'cpu-test-a'), 0, line);
    } finally {
      await worker.terminate();
    }
  },
);
