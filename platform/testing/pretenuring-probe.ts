/**
 * Child process of v8-pretenuring.test.ts: makes 6 M kept objects at one literal (V8 pretenures it, unless stopped),
 * then measures where 4,000 more of them go: prints `{ young, old }`, the bytes the young and old generations grew by
 * (~290 KB in one of them). A measure during which V8 collected (its GCProfiler saw a collection: survivors moved to
 * the old generation) is taken again, 50 times at most.
 * Argument `stop`: stopAllocationSitePretenuring() first. The loops stay at the module's top level: the same loops in
 * a function were not pretenured on Node 20 or 26.
 */
import { GCProfiler, getHeapSpaceStatistics } from 'node:v8';
import { stopAllocationSitePretenuring } from '../v8-pretenuring.ts';

if (process.argv[2] === 'stop') stopAllocationSitePretenuring();

/** Bytes of the young and old generations (used, or grown by). */
export interface Growth {
  readonly young: number;
  readonly old: number;
}

const make = (i: number): { a: number; b: { c: number } } => ({ a: i, b: { c: i } });
const used = (): Growth => {
  const spaces = new Map(getHeapSpaceStatistics().map((s) => [s.space_name, s.space_used_size]));
  return { young: spaces.get('new_space') ?? 0, old: spaces.get('old_space') ?? 0 };
};
const kept: unknown[] = [];
for (let i = 0; i < 6_000_000; i++) kept.push(make(i));
for (let attempt = 0; ; attempt++) {
  const collections = new GCProfiler();
  collections.start();
  const before = used();
  for (let i = 0; i < 4_000; i++) kept.push(make(i));
  const after = used();
  if (collections.stop().statistics.length === 0 || attempt === 50) {
    process.stdout.write(JSON.stringify({ young: after.young - before.young, old: after.old - before.old } satisfies Growth));
    break;
  }
}
