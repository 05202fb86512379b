// Where `npm test` looks for tests: every *.test.ts under the repository root, outside dependency, data and
// build folders and dot-folders. Shared by tools/run-tests.mjs and the test that no test file is left out.
// Also which of them are unit tests (`npm test -- --unit`, the part CI runs on the second Node line).
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Folder names never searched (installed packages, runtime data, the Kafka runner's jars and build output). */
export const SKIPPED_FOLDERS = new Set(['node_modules', 'data', 'lib', 'target']);

/** Every *.test.ts under `root` (repository-relative, sorted). */
export function findTestFiles(root) {
  const out = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) {
        if (!SKIPPED_FOLDERS.has(name) && !name.startsWith('.')) walk(p);
      } else if (name.endsWith('.test.ts')) {
        out.push(relative(root, p));
      }
    }
  };
  walk(root);
  return out.sort();
}

/**
 * Unit tests: the test files that run the code in the test's own process and need no suite-specific tool (they
 * start what they use: the embedded ClickHouse engine, a redis-server, openssl for certificates), i.e. all but
 *   - the Kafka, Prometheus and browser suites (*.kafka / *.prometheus / *.browser.test.ts: a broker, promtool and
 *     prometheus, Chromium),
 *   - test/e2e/ (the product's roles fed by the sandbox market, waiting for wall-clock snapshot and flow buckets, or
 *     every suite again through the HTTP endpoint),
 *   - the command-line tests directly in app/cli/ (each runs `gex` commands as child processes against stores it
 *     builds: about 40 % of the remaining time; app/cli/commands/ stays in).
 */
export function isUnitTest(file) {
  return !/\.(kafka|prometheus|browser)\.test\.ts$/.test(file) && !file.startsWith('test/e2e/') && !/^app\/cli\/[^/]+$/.test(file);
}

/**
 * The files that take longest (minutes each, mostly waiting on wall-clock snapshot ticks and broker restarts), started
 * first: with two files at a time the rest of the suite runs beside them instead of after them.
 */
export const LONGEST_FIRST = ['tools/chaos/role-outage/role-outage.kafka.test.ts', 'test/browser/explorer.browser.test.ts'];

/** `files` with those of LONGEST_FIRST in front, in that order; the others keep their order. */
export function longestFirst(files) {
  const head = LONGEST_FIRST.filter((f) => files.includes(f));
  return [...head, ...files.filter((f) => !head.includes(f))];
}
