/**
 * Reading a task's /proc stat line (Linux, proc(5)): `pid (comm) state ppid ... nice ... starttime ...`. The name may
 * hold spaces and parentheses, so the fields are read after the last `)`. Pure parsing apart from `taskStat`.
 */
import { readFileSync } from 'node:fs';

/** Indexes into statFields' result (proc(5)'s field number minus 3). */
export const STAT_FIELD = { state: 0, ppid: 1, utime: 11, stime: 12, nice: 16, starttime: 19 } as const;

/** The fields after the name of a stat line (the state first). */
export function statFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** The stat fields of one task of this process (/proc/self/task/<tid>/stat); null when it is gone or there is no /proc. */
export function taskStat(tid: number | string): string[] | null {
  try {
    return statFields(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

/** A task's niceness; NaN when it is gone or there is no /proc. */
export function taskNice(tid: number): number {
  return Number(taskStat(tid)?.[STAT_FIELD.nice]);
}
