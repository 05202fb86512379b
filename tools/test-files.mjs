// Where `npm test` looks for tests: every *.test.ts under the repository root, outside dependency, data and
// build folders and dot-folders. Shared by tools/run-tests.mjs and the test that no test file is left out.
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
