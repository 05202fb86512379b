import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Growth } from './testing/pretenuring-probe.ts';

const PROBE = new URL('./testing/pretenuring-probe.ts', import.meta.url).pathname;

/**
 * V8 makes a place's objects old only while its young generation is at its largest, which V8's own sizing reached late
 * or not at all on a busy machine (CI, Node 26: in none of 4 runs): the child's young generation is fixed at its
 * largest from the start (semi-spaces of 1 MB; under two busy processes V8 then pretenured in 12 runs of 12, Node 20
 * and 26).
 */
const YOUNG_FIXED = ['--min-semi-space-size=1', '--max-semi-space-size=1'];

/** Bytes the young and old generations grew by while a child made 4,000 more objects at a hot literal (~290 KB), no collection in between. */
async function growth(mode: 'keep' | 'stop'): Promise<Growth> {
  const { stdout } = await promisify(execFile)(process.execPath, [...YOUNG_FIXED, '--import', 'tsx', PROBE, mode]);
  return JSON.parse(stdout) as Growth;
}

const inOld = (g: Growth): boolean => g.old > 200_000 && g.young < g.old / 10;
const inYoung = (g: Growth): boolean => g.young > 200_000 && g.old < g.young / 10;

test('stopped, a hot literal whose objects survive is made in the young generation; by default V8 makes it in the old one', async () => {
  // V8's default: the probe is run until the literal is pretenured, 4 times at most.
  const kept: Growth[] = [];
  while (kept.length < 4 && !kept.some(inOld)) kept.push(await growth('keep'));
  assert.ok(kept.some(inOld), `V8's default: ${JSON.stringify(kept)}`);
  // Stopped, it never is.
  for (let run = 0; run < 2; run++) {
    const stopped = await growth('stop');
    assert.ok(inYoung(stopped), `stopped: ${JSON.stringify(stopped)}`);
  }
});
