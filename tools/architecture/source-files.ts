/** The TypeScript sources under a folder, tests (`*.test.ts`) and declarations (`*.d.ts`) excluded. */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Folders never searched (installed packages, runtime data, the Kafka runner's jars and build output); dot-folders neither. */
const SKIP_DIRS = new Set(['node_modules', 'data', 'lib', 'target']);

export function typeScriptSources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (!SKIP_DIRS.has(name) && !name.startsWith('.')) typeScriptSources(path, out);
    } else if (name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}
