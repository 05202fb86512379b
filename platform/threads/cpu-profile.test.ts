import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCpuProfile } from './cpu-profile.ts';

function busyLoopForProfile(ms: number): number {
  let x = 0;
  for (const end = Date.now() + ms; Date.now() < end;) x += Math.sqrt(x + 1);
  return x;
}

test('startCpuProfile samples this thread and writes a .cpuprofile naming the functions that ran', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cpu-profile-'));
  try {
    const path = join(dir, 'main.cpuprofile');
    const profile = await startCpuProfile(path, 200);
    busyLoopForProfile(200);
    await profile.stop();
    const p = JSON.parse(readFileSync(path, 'utf8')) as {
      nodes: { id: number; callFrame: { functionName: string } }[];
      samples: number[];
      startTime: number;
      endTime: number;
    };
    assert.ok(p.samples.length >= 100, `${p.samples.length} samples in ~200 ms at 200 us`);
    const busy = p.nodes.filter((n) => n.callFrame.functionName === 'busyLoopForProfile').map((n) => n.id);
    const inBusy = p.samples.filter((s) => busy.includes(s)).length;
    assert.ok(inBusy >= p.samples.length / 2, `${inBusy} of ${p.samples.length} samples in the busy loop`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
