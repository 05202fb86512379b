import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { processAlive } from '#platform/process-alive.ts';

const root = new URL('../../', import.meta.url).pathname;

test('a contention spinner runs while its parent lives and exits by itself once the parent is gone', async () => {
  // A parent that starts one spinner, reports the spinner's pid and CPU time after 1 s, then exits without stop().
  const script = `
    import { startContention } from './tools/chaos/contention.ts';
    import { execSync } from 'node:child_process';
    startContention(1);
    await new Promise((r) => setTimeout(r, 1000));
    const line = execSync('ps -o pid=,time=,args= --ppid ' + process.pid).toString().split('\\n').find((l) => l.includes('process.ppid')) ?? '';
    console.log(line.trim().split(/\\s+/).slice(0, 2).join(' '));
    process.exit(0);
  `;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
    timeout: 20_000,
  });
  assert.equal(r.status, 0, r.stderr);
  const [pid, cpu] = r.stdout.trim().split(' ');
  assert.ok(Number(pid) > 0, `spinner pid: ${r.stdout}`);
  assert.match(cpu ?? '', /^\d\d:\d\d:\d\d$/);
  const deadline = Date.now() + 3_000;
  while (processAlive(Number(pid)) && Date.now() < deadline) await new Promise((res) => setTimeout(res, 100));
  assert.equal(processAlive(Number(pid)), false, 'the spinner exited within 3 s of its parent');
});
