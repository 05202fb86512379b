import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { findTestFiles, LONGEST_FIRST, runOrder } from './test-files.mjs';

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

test('run order: the outage test first with the unit tests beside it, then the flow routes test and the other suites; every listed file exists', () => {
  const found = new Set(findTestFiles(ROOT));
  for (const f of LONGEST_FIRST) assert.ok(found.has(f), `${f} is listed in LONGEST_FIRST but is not a test file`);
  const [outage, flow] = LONGEST_FIRST;
  assert.ok(outage !== undefined && flow !== undefined);
  const files = ['app/cli/sql.test.ts', 'b/x.kafka.test.ts', flow, 'a/unit.test.ts', outage, 'test/e2e/other.test.ts', 'c/unit.test.ts'];
  assert.deepEqual(runOrder(files), [
    outage,
    'a/unit.test.ts',
    'c/unit.test.ts',
    flow,
    'app/cli/sql.test.ts',
    'b/x.kafka.test.ts',
    'test/e2e/other.test.ts',
  ]);
  assert.deepEqual(runOrder(['b.test.ts', flow, 'a.test.ts']), ['b.test.ts', 'a.test.ts', flow]);
  assert.deepEqual(runOrder([]), []);
  // The whole suite: the same files, each once.
  const all = findTestFiles(ROOT);
  assert.deepEqual([...runOrder(all)].sort(), all);
  assert.equal(runOrder(all)[0], outage);
});
