/**
 * V8's allocation-site pretenuring, stopped for the whole process. With it (V8's default), an object literal or array
 * made at one place of the code whose objects survived young-generation collections often enough is from then on
 * made in the old generation. A container made there keeps every young object it refers to alive until the next full
 * collection: under the replay bench's paced consumers the replay thread's per-trade objects were all promoted, the
 * thread ran a full collection every ~200 ms and the tape replay ran 13-17 % slower (bench/RESULTS.md "replay").
 * V8's flags are the process's: the event loop's isolate and every worker thread's change together.
 */
import { setFlagsFromString } from 'node:v8';

let stopped = false;

/** Whether this process has stopped allocation-site pretenuring (stopAllocationSitePretenuring). */
export const allocationSitePretenuringStopped = (): boolean => stopped;

/** Stops allocation-site pretenuring for the process; true when this call stopped it (later calls change nothing). */
export function stopAllocationSitePretenuring(): boolean {
  if (stopped) return false;
  stopped = true;
  setFlagsFromString('--no-allocation-site-pretenuring');
  return true;
}
