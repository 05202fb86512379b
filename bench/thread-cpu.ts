/**
 * CPU time of this process's threads grouped by OS thread name (Linux, /proc/self/task/<tid>/stat): the event loop's
 * thread as `main`, the product's worker threads by their names (`gex-ingest`, `gex-replay`: platform/threads/
 * ts-worker.ts), Node's own helpers as `node` (V8's garbage-collection and compiler threads, libuv's pool), the
 * embedded store's threads by the names the engine gives them (`MergeMutate` merges, `Unknown` the threads that run
 * the statements: parsing, materialized views, writing parts). Elsewhere: an empty sample.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { STAT_FIELD, statFields } from '#platform/threads/proc-stat.ts';

/** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on Linux). */
const TICKS = 100;

export type ThreadCpu = ReadonlyMap<string, number>;

/** CPU seconds (user + system) of a /proc stat line. */
function cpuSeconds(stat: string): number {
  const fields = statFields(stat);
  return (Number(fields[STAT_FIELD.utime]) + Number(fields[STAT_FIELD.stime])) / TICKS;
}

/** CPU seconds (user + system) so far of every live thread, summed by thread name (trailing digits dropped). */
export function threadCpu(): ThreadCpu {
  const out = new Map<string, number>();
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
    out.set(name, (out.get(name) ?? 0) + cpuSeconds(stat));
  }
  return out;
}

/** CPU seconds (user + system) so far of another process (its whole, every thread); NaN without /proc. */
export function processCpu(pid: number): number {
  try {
    return cpuSeconds(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return Number.NaN;
  }
}

/** "name 1.23, name 0.45, ..." of the CPU seconds between two samples, largest first, shares under 0.05 s left out. */
export function threadCpuSince(before: ThreadCpu, after: ThreadCpu = threadCpu()): string {
  const rows: [string, number][] = [];
  for (const [name, s] of after) {
    const d = s - (before.get(name) ?? 0);
    if (d >= 0.05) rows.push([name, d]);
  }
  rows.sort((a, b) => b[1] - a[1]);
  return rows.map(([name, s]) => `${name} ${s.toFixed(2)}`).join(', ');
}
