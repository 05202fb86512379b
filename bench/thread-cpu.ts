/**
 * CPU time of this process's threads grouped by OS thread name (Linux, /proc/self/task/<tid>/stat): the event loop's
 * thread as `main`, the product's worker threads by their names (`gex-ingest`, `gex-replay`: platform/threads/
 * ts-worker.ts), Node's own helpers as `node` (V8's garbage-collection and compiler threads, libuv's pool), the
 * embedded store's threads by the names the engine gives them (`MergeMutate` merges, `Unknown` the threads that run
 * the statements: parsing, materialized views, writing parts). Elsewhere: an empty sample.
 *
 * The engine renames its pool threads as they take other jobs (a `ThreadPool` thread runs a query as
 * `QueryPullPipeEx`), so a sample keeps each thread's CPU under the thread itself (its id and start time) and a
 * difference of two samples is taken thread by thread, then summed under the name each thread has at the end: summed
 * by name in each sample, a renamed thread's whole past CPU counted as new under its new name (a WebSocket tape replay
 * once printed 114 CPU-s of `ThreadPool` in 62 s on 2 cores).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { STAT_FIELD, statFields } from '#platform/threads/proc-stat.ts';

/** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on Linux). */
const TICKS = 100;

/** A sample: each live thread (by id and start time) with its name and CPU seconds so far. */
export type ThreadCpu = ReadonlyMap<string, { readonly name: string; readonly seconds: number }>;

/** CPU seconds (user + system) of a /proc stat line's fields (statFields). */
function cpuSeconds(fields: readonly string[]): number {
  return (Number(fields[STAT_FIELD.utime]) + Number(fields[STAT_FIELD.stime])) / TICKS;
}

/** CPU seconds (user + system) so far of every live thread, with its name (trailing digits dropped). */
export function threadCpu(): ThreadCpu {
  const out = new Map<string, { name: string; seconds: number }>();
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return out;
  }
  for (const tid of tids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended meanwhile
    }
    const close = stat.lastIndexOf(')');
    const name = tid === String(process.pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, close).replace(/[\d\s]+$/, '');
    const fields = statFields(stat);
    // A thread id can be reused once its thread ended: with the start time the key names one thread.
    out.set(`${tid}@${fields[STAT_FIELD.starttime]}`, { name, seconds: cpuSeconds(fields) });
  }
  return out;
}

/** CPU seconds (user + system) so far of another process (its whole, every thread); NaN without /proc. */
export function processCpu(pid: number): number {
  try {
    return cpuSeconds(statFields(readFileSync(`/proc/${pid}/stat`, 'utf8')));
  } catch {
    return Number.NaN;
  }
}

/**
 * The CPU seconds between two samples, thread by thread, summed under each thread's name in `after` (a thread born
 * between the samples counts from zero; one that ended is not counted).
 */
export function threadCpuByName(before: ThreadCpu, after: ThreadCpu = threadCpu()): ReadonlyMap<string, number> {
  const byName = new Map<string, number>();
  for (const [thread, { name, seconds }] of after) byName.set(name, (byName.get(name) ?? 0) + seconds - (before.get(thread)?.seconds ?? 0));
  return byName;
}

/** "name 1.23, name 0.45, ..." of threadCpuByName, largest first, shares under 0.05 s left out. */
export function threadCpuSince(before: ThreadCpu, after: ThreadCpu = threadCpu()): string {
  const rows = [...threadCpuByName(before, after)].filter(([, s]) => s >= 0.05);
  rows.sort((a, b) => b[1] - a[1]);
  return rows.map(([name, s]) => `${name} ${s.toFixed(2)}`).join(', ');
}
