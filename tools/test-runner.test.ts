import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const RUNNER = fileURLToPath(new URL('./test-runner.mjs', import.meta.url));

/** Runs tools/test-runner.mjs at concurrency 1 over the files (name -> source), in the order given. */
function runFiles(files: Record<string, string>, timeoutMs = 60_000): { out: string; status: number | null } {
  const dir = mkdtempSync(join(tmpdir(), 'test-runner-'));
  try {
    for (const [name, source] of Object.entries(files)) writeFileSync(join(dir, name), source);
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', RUNNER, '1', String(timeoutMs), ...Object.keys(files).map((f) => join(dir, f))],
      {
        cwd: ROOT,
        encoding: 'utf8',
        // Without the parent runner's marker: a nested run would otherwise take itself for a test file's run().
        env: Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_TEST_CONTEXT')),
      },
    );
    return { out: r.stdout, status: r.status };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const printing = (name: string): string => `import { test } from 'node:test';
test('${name}', () => { console.log('started ${name}'); });
`;

test('the test runner starts the files in the order given, not sorted by path (the longest first)', () => {
  const { out, status } = runFiles({ 'z.test.mjs': printing('z'), 'a.test.mjs': printing('a'), 'm.test.ts': printing('m') });
  assert.equal(status, 0, out);
  assert.deepEqual(
    out.split('\n').filter((l) => l.startsWith('# started ')),
    ['# started z', '# started a', '# started m'],
    out,
  );
  assert.ok(out.includes('# pass 3'), out);
  assert.ok(!out.includes('failed test(s)'), out);
  // After the TAP: each file's wall time and the sum of its tests, the longest first.
  const times = out.slice(out.indexOf('# slowest files'));
  assert.ok(out.indexOf('# slowest files') > out.lastIndexOf('# duration_ms'), out);
  const rows = times.split('\n').filter((l) => /^# +\d+\.\d \| +\d+\.\d {2}\S/.test(l));
  assert.deepEqual(rows.map((l) => l.replace(/^.* {2}(\S+)$/, '$1').replace(/^.*\//, '')).sort(), [
    'a.test.mjs',
    'm.test.ts',
    'z.test.mjs',
  ]);
  const walls = rows.map((l) => Number(/^# +(\d+\.\d)/.exec(l)?.[1]));
  assert.deepEqual(
    walls,
    [...walls].sort((x, y) => y - x),
    'the longest first',
  );
});

test('the file times measure each file from its start to its end: a slow file started first is listed first', () => {
  // At concurrency 1 the quick file starts when the slow one ended: timed from the run's start, it would come first.
  const { out, status } = runFiles({
    'slow.test.mjs': `import { test } from 'node:test';\ntest('sleeps', () => new Promise((r) => setTimeout(r, 1500)));\n`,
    'quick.test.mjs': printing('quick'),
  });
  assert.equal(status, 0, out);
  const rows = out.slice(out.indexOf('# slowest files')).split('\n').slice(1, 3);
  const [, wall, tests] = /^# +(\d+\.\d) \| +(\d+\.\d) {2}.*slow\.test\.mjs$/.exec(rows[0] ?? '') ?? [];
  assert.ok(Number(tests) >= 1.5 && Number(wall) >= 1.5, `slow file first with >= 1.5 s of tests: ${rows.join(' / ')}`);
  const [, quickWall] = /^# +(\d+\.\d) \| +\d+\.\d {2}.*quick\.test\.mjs$/.exec(rows[1] ?? '') ?? [];
  assert.ok(quickWall !== undefined && Number(quickWall) < Number(wall), `the quick file second, shorter: ${rows.join(' / ')}`);
});

test('the test runner exits 1 on a failed or timed-out test and names each failure after the TAP', () => {
  const { out, status } = runFiles(
    {
      'fails.test.mjs': `import { test } from 'node:test';\ntest('adds wrong', () => { if (1 + 1 !== 3) throw new Error('1 + 1 is not 3'); });\n`,
      'slow.test.mjs': `import { test } from 'node:test';\ntest('sleeps', () => new Promise((r) => setTimeout(r, 30_000)));\n`,
      'passes.test.mjs': printing('p'),
    },
    // Per file, its process start included: 1 s timed out the passing file too on a busy machine.
    4_000,
  );
  assert.equal(status, 1, out);
  const summary = out.slice(out.indexOf('# 2 failed test(s):'));
  assert.ok(out.indexOf('# 2 failed test(s):') > out.lastIndexOf('# duration_ms'), `the failures come after the TAP:\n${out}`);
  assert.match(summary, /# FAILED \S*fails\.test\.mjs\n# {3}adds wrong\n[^]*1 \+ 1 is not 3/);
  // Node 20 names the file's process there, Node 26 the test.
  assert.match(summary, /# FAILED \S*slow\.test\.mjs\n[^]*timed out after 4000ms/);
  assert.ok(out.includes('# pass 1'), out);
});

test('the test runner refuses an empty file list or a bad concurrency (exit 2)', () => {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_TEST_CONTEXT'));
  for (const args of [
    ['2', '1000'],
    ['0', '1000', 'x.test.mjs'],
  ]) {
    const r = spawnSync(process.execPath, [RUNNER, ...args], { cwd: ROOT, encoding: 'utf8', env });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /usage: test-runner\.mjs/);
  }
});
