/**
 * V8's platform worker threads: the threads that run the garbage collection and compiler tasks of every isolate in
 * the process (the event loop's and each worker thread's alike). They run at the process's niceness whatever the
 * isolate they work for, so a low-priority worker thread's garbage collection competes with the event loop at full
 * priority; `lowerV8WorkerPriority` moves them to a given niceness (Linux; elsewhere, or unprivileged for a value
 * below the current one, nothing changes).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { STAT_FIELD, taskStat } from './proc-stat.ts';

/** One task (thread) of this process as /proc/self/task lists it. */
export interface ProcessTask {
  readonly tid: number;
  /** The thread's name (/proc/self/task/<tid>/comm, at most 15 bytes). */
  readonly comm: string;
  /** When the thread started, in clock ticks since boot (/proc/self/task/<tid>/stat field 22). */
  readonly start: number;
}

/** Name Node 24 and later give each V8 platform worker thread. */
export const V8_WORKER_NAME = 'node-V8Worker';
/** V8 platform worker threads Node starts unless `--v8-pool-size` says otherwise. */
export const DEFAULT_V8_POOL_SIZE = 4;

/**
 * The task ids of V8's platform worker threads among `tasks` (a process's tasks, `pid` its main thread).
 * - Named (Node 24+): every task called `node-V8Worker`.
 * - Unnamed (Node 20, 22): every thread Node starts carries the process's name (`node`), as do libuv's pool and the
 *   engine's unnamed threads. The first threads the main thread starts, before any JavaScript runs, are the delayed-task
 *   scheduler and the `poolSize` platform workers: they are the `1 + poolSize` oldest tasks after the main thread
 *   (by start time, then id: ids grow with creation but other processes take ids in between), the scheduler included
 *   (it only hands delayed tasks to the workers). When one of them is named otherwise, no task is returned: a thread
 *   that cannot be told apart is left as it is.
 */
export function v8WorkerThreads(tasks: readonly ProcessTask[], pid: number, poolSize = DEFAULT_V8_POOL_SIZE): number[] {
  const named = tasks.filter((t) => t.comm === V8_WORKER_NAME).map((t) => t.tid);
  if (named.length > 0) return named.sort((a, b) => a - b);
  const oldest = tasks
    .filter((t) => t.tid !== pid)
    .sort((a, b) => a.start - b.start || a.tid - b.tid)
    .slice(0, 1 + poolSize);
  if (oldest.length < 1 + poolSize || oldest.some((t) => t.comm !== 'node')) return [];
  return oldest.map((t) => t.tid).sort((a, b) => a - b);
}

/** This process's tasks (Linux /proc/self/task); empty where there is no /proc. */
export function processTasks(): ProcessTask[] {
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return [];
  }
  const tasks: ProcessTask[] = [];
  for (const t of tids) {
    try {
      const stat = taskStat(t);
      if (stat === null) continue;
      tasks.push({
        tid: Number(t),
        comm: readFileSync(`/proc/self/task/${t}/comm`, 'utf8').trim(),
        start: Number(stat[STAT_FIELD.starttime]),
      });
    } catch {
      // The thread ended meanwhile.
    }
  }
  return tasks;
}

/** `--v8-pool-size=N` from the process's flags (Node's own or NODE_OPTIONS), else Node's default. */
export function v8PoolSize(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env['NODE_OPTIONS'] ?? ''): number {
  const flags = [...execArgv, ...nodeOptions.split(/\s+/)];
  for (const f of flags) {
    const m = /^--v8-pool-size=(\d+)$/.exec(f);
    if (m !== null) return Number(m[1]);
  }
  return DEFAULT_V8_POOL_SIZE;
}

/**
 * Sets V8's platform worker threads of this process to niceness `nice`; returns the task ids changed (none where
 * they cannot be told apart, where there is no /proc, or where the change is refused).
 */
export function lowerV8WorkerPriority(nice: number): number[] {
  const changed: number[] = [];
  for (const tid of v8WorkerThreads(processTasks(), process.pid, v8PoolSize())) {
    try {
      setPriority(tid, nice);
      changed.push(tid);
    } catch {
      // Refused (a value below the current one without CAP_SYS_NICE) or the thread ended: left as it is.
    }
  }
  return changed;
}
