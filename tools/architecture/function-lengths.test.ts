import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { longFunctions } from './function-lengths.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

test('the sandbox (market model and venue servers) has no function over 120 lines', () => {
  assert.deepEqual(longFunctions(ROOT, 120, ['sandbox']), []);
});

test('a function is measured from its first to its last line, nested ones included; test files are skipped', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fn-len-'));
  try {
    mkdirSync(join(dir, 'src'));
    const body = (n: number): string => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n');
    writeFileSync(
      join(dir, 'src/a.ts'),
      `export function outer(): void {\n${body(3)}\n  const inner = (): number => {\n${body(2)}\n    return 1;\n  };\n  inner();\n}\n`,
    );
    writeFileSync(join(dir, 'src/a.test.ts'), `export function huge(): void {\n${body(50)}\n}\n`);
    assert.deepEqual(longFunctions(dir, 5, ['src']), [{ file: 'src/a.ts', line: 1, name: 'outer', lines: 11 }]);
    assert.deepEqual(
      longFunctions(dir, 3, ['src']).map((f) => `${f.name}:${f.lines}`),
      ['outer:11', 'inner:5'],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
