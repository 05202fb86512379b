import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { findTestFiles, LONGEST_FIRST, longestFirst } from './test-files.mjs';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

test('npm test searches every tracked *.test.ts: no test file sits outside the runner', () => {
  const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.test.ts'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((f) => f.endsWith('.test.ts'));
  assert.ok(tracked.length > 100, `only ${tracked.length} test files tracked`);
  const found = new Set(findTestFiles(ROOT));
  assert.deepEqual(
    tracked.filter((f) => !found.has(f)),
    [],
  );
  assert.ok(found.has('bench/steady-load.test.ts'));
});

test('the longest files start first, in their listed order; every listed file exists', () => {
  const found = new Set(findTestFiles(ROOT));
  for (const f of LONGEST_FIRST) assert.ok(found.has(f), `${f} is listed in LONGEST_FIRST but is not a test file`);
  const [first, second] = LONGEST_FIRST;
  assert.ok(first !== undefined && second !== undefined);
  assert.deepEqual(longestFirst(['a.test.ts', second, 'b.test.ts', first]), [first, second, 'a.test.ts', 'b.test.ts']);
  assert.deepEqual(longestFirst(['b.test.ts', second, 'a.test.ts']), [second, 'b.test.ts', 'a.test.ts']);
  assert.deepEqual(longestFirst([]), []);
});
