import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getPriority } from 'node:os';
import { DEFAULT_V8_POOL_SIZE, lowerV8WorkerPriority, processTasks, v8PoolSize, v8WorkerThreads, type ProcessTask } from './v8-workers.ts';
import { taskNice } from './proc-stat.ts';

const tasks = (list: readonly [number, string, number?][]): ProcessTask[] => list.map(([tid, comm, start = 100]) => ({ tid, comm, start }));

test('named V8 workers (Node 24+) are chosen by name, whatever their ids', () => {
  // /proc/self/task of a Node 26.12.1 process with one worker thread (recorded on this machine).
  const node26 = tasks([
    [17286, 'node-MainThread'],
    [17287, 'DelayedTaskSche'],
    [17288, 'node-V8Worker'],
    [17289, 'node-V8Worker'],
    [17291, 'node-V8Worker'],
    [17290, 'node-V8Worker'],
    [17292, 'SignalInspector'],
    [17293, 'WorkerThread', 103],
  ]);
  assert.deepEqual(v8WorkerThreads(node26, 17286), [17288, 17289, 17290, 17291]);
});

test('unnamed (Node 20, 22): the scheduler and the pool, the oldest threads after the main one, none started later', () => {
  // Node 20.20.2 (ids and start ticks recorded on this machine): the main thread, the delayed-task scheduler, 4
  // platform workers, the inspector's signal thread; then threads started later (libuv's pool, a worker thread, the
  // engine's unnamed threads) also called `node`.
  const node20 = tasks([
    [22673, 'node', 5818787],
    [22674, 'node', 5818790],
    [22675, 'node', 5818790],
    [22676, 'node', 5818790],
    [22677, 'node', 5818790],
    [22678, 'node', 5818790],
    [22679, 'node', 5818791],
    [22690, 'node', 5818840],
    [22691, 'gex-replay', 5818841],
  ]);
  assert.deepEqual(v8WorkerThreads(node20, 22673), [22674, 22675, 22676, 22677, 22678]);
  assert.deepEqual(v8WorkerThreads(node20, 22673, 2), [22674, 22675, 22676]);
  assert.deepEqual(v8WorkerThreads(node20, 22673, 0), [22674]);
  // Other processes took ids between them (seen: the pool at pid + 4 ... pid + 7): still the oldest five.
  const gaps = tasks([
    [24061, 'node', 900],
    [24063, 'node', 903],
    [24065, 'node', 903],
    [24066, 'node', 903],
    [24067, 'node', 903],
    [24068, 'node', 903],
    [24064, 'node', 910],
    [24090, 'QueryPipelineEx', 950],
  ]);
  assert.deepEqual(v8WorkerThreads(gaps, 24061), [24063, 24065, 24066, 24067, 24068]);
});

test('unnamed, and one of the oldest threads named otherwise or too few threads: nothing is chosen', () => {
  const other = tasks([
    [100, 'node', 1],
    [101, 'node', 2],
    [102, 'node', 2],
    [103, 'QueryPipelineEx', 2],
    [104, 'node', 2],
    [105, 'node', 2],
    [106, 'node', 9],
  ]);
  assert.deepEqual(v8WorkerThreads(other, 100), []);
  assert.deepEqual(
    v8WorkerThreads(
      tasks([
        [100, 'node', 1],
        [101, 'node', 2],
      ]),
      100,
    ),
    [],
  );
  assert.deepEqual(v8WorkerThreads([], 100), []);
});

test('the pool size comes from --v8-pool-size in the flags or NODE_OPTIONS, else the default', () => {
  assert.equal(v8PoolSize([], ''), DEFAULT_V8_POOL_SIZE);
  assert.equal(v8PoolSize(['--v8-pool-size=2'], ''), 2);
  assert.equal(v8PoolSize(['--import', 'tsx'], '--max-old-space-size=512 --v8-pool-size=8'), 8);
  assert.equal(v8PoolSize(['--v8-pool-size'], ''), DEFAULT_V8_POOL_SIZE);
});

test(
  'on Linux: the platform workers of this process go to the given niceness, the event loop stays as it was',
  { skip: process.platform !== 'linux' ? 'Linux only (/proc, per-thread niceness)' : false },
  () => {
    const mainBefore = getPriority(process.pid);
    const expected = v8WorkerThreads(processTasks(), process.pid, v8PoolSize());
    assert.ok(expected.length >= 1, `platform workers found among ${JSON.stringify(processTasks())}`);
    const changed = lowerV8WorkerPriority(17);
    assert.deepEqual(changed, expected);
    for (const tid of changed) assert.equal(taskNice(tid), 17, `task ${tid}`);
    assert.equal(getPriority(process.pid), mainBefore);
    assert.equal(taskNice(process.pid), mainBefore);
  },
);
