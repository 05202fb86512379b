import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPORTER = fileURLToPath(new URL('./failures-reporter.mjs', import.meta.url));

/** Runs one test file under node:test with the failures reporter alone; its output and exit code. */
function run(source: string): { out: string; status: number | null } {
  const dir = mkdtempSync(join(tmpdir(), 'failures-reporter-'));
  try {
    writeFileSync(join(dir, 'sample.test.mjs'), source);
    const r = spawnSync(
      process.execPath,
      ['--test', `--test-reporter=${REPORTER}`, '--test-reporter-destination=stdout', 'sample.test.mjs'],
      {
        cwd: dir,
        encoding: 'utf8',
        // Without the parent runner's marker: a nested `node --test` would otherwise take itself for a test file's run().
        env: Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_TEST_CONTEXT')),
      },
    );
    return { out: r.stdout, status: r.status };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('failures reporter: every failed test once at the end, with its file, suites and error; the suites around it are not repeated', () => {
  const { out, status } = run(`import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
describe('outer', () => {
  test('passes', () => assert.equal(1, 1));
  describe('inner', () => {
    test('adds wrong', () => assert.equal(1 + 1, 3));
  });
});
test('throws', () => { throw new Error('boom'); });
test('also passes', () => {});
`);
  assert.equal(status, 1, out);
  const lines = out.split('\n');
  assert.equal(lines.filter((l) => l.startsWith('# FAILED ')).length, 2, out);
  assert.ok(lines.includes('# 2 failed test(s):'), out);
  assert.deepEqual(
    lines.filter((l) => /^# {3}\S/.test(l)),
    ['#   outer > inner > adds wrong', '#   throws'],
  );
  assert.ok(lines.includes('# FAILED sample.test.mjs'), out);
  assert.ok(lines.includes('#     2 !== 3'), out);
  assert.ok(lines.includes('#     Error: boom'), out);
  assert.ok(!out.includes('node:internal'), "the runner's own frames are left out");
});

test('failures reporter: nothing at all when every test passes', () => {
  const { out, status } = run(`import { test } from 'node:test';
test('passes', () => {});
`);
  assert.equal(status, 0);
  assert.equal(out, '');
});
