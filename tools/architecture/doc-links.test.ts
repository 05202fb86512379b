import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { danglingReferences } from './doc-links.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

test('every repository path named in a comment or a README exists in the repository', () => {
  const found = danglingReferences(ROOT).map((d) => `${d.file} ${d.reference}`);
  assert.deepEqual(found, []);
});

test('the checker flags a missing file, a path outside the repository and ignores code, URLs and migrations', () => {
  const dir = mkdtempSync(join(tmpdir(), 'doc-links-'));
  const files: Record<string, string> = {
    'ingest/a.ts': [
      '/** Reads ingest/b.ts and ingest/gone.ts; see ../../../shared/design/venues.md and https://x.io/docs/api/v1.md. */',
      "export const path = 'ingest/missing-in-code.ts';",
      '// ./b.ts and market/c.ts (found above: ingest/market/c.ts)',
    ].join('\n'),
    'ingest/b.ts': 'export const b = 1;\n',
    'ingest/market/c.ts': '// up the tree: ingest/b.ts, from the root: README.md; sibling folder: market/nope.mjs\nexport const c = 1;\n',
    'README.md': 'See `ingest/a.ts`, `/work/shared/design/gex-methodology.md` and `clickhouse/migrate.ts`.\n',
    'clickhouse/migrations/001_x.sql': '-- clickhouse/migrations.test.ts checks it\n',
  };
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(dir, dirname(path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const found = danglingReferences(dir).map((d) => `${d.file}:${d.line} ${d.reference}`);
    assert.deepEqual(found.sort(), [
      'README.md:1 clickhouse/migrate.ts',
      'README.md:1 work/shared/design/gex-methodology.md',
      'ingest/a.ts:1 ../../../shared/design/venues.md',
      'ingest/a.ts:1 ingest/gone.ts',
      'ingest/market/c.ts:1 market/nope.mjs',
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
