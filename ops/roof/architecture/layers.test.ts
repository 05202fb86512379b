import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkArchitecture, describeViolation } from './check.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

test('the repository keeps the layer rules: no back-import, no cycle, pure analytics, every import resolves', async () => {
  const report = await checkArchitecture(ROOT);
  assert.ok(report.modules > 300, `cruised only ${report.modules} modules`);
  assert.deepEqual(report.violations.map(describeViolation), []);
});

/** A throwaway tree with one module per layer and the given extra files. */
function tree(files: Record<string, string>): { dir: string; dispose: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'arch-'));
  const base: Record<string, string> = {
    'schemas/events.ts': 'export const A = 1;\n',
    'ops/floor/log.ts': "import { A } from '../../schemas/events.ts';\nexport const L = A;\n",
    'clickhouse/store.ts': "import { L } from '../ops/floor/log.ts';\nexport const S = L;\n",
    'ingest/connector.ts': "import { S } from '../clickhouse/store.ts';\nexport const C = S;\n",
    'processors/analytics/gex.ts': "import { A } from '../../schemas/events.ts';\nexport const G = A;\n",
    'processors/writer.ts': "import { S } from '../clickhouse/store.ts';\nexport const W = S;\n",
    'query-api/route.ts': "import { G } from '../processors/analytics/gex.ts';\nexport const R = G;\n",
    'ops/roof/cli.ts': "import { R } from '../../query-api/route.ts';\nimport { C } from '../../ingest/connector.ts';\nexport const X = R + C;\n",
  };
  for (const [path, text] of Object.entries({ ...base, ...files })) {
    mkdirSync(join(dir, dirname(path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

const FOLDERS = ['schemas', 'ops', 'clickhouse', 'ingest', 'processors', 'query-api'];

async function violationsOf(files: Record<string, string>): Promise<string[]> {
  const t = tree(files);
  try {
    return (await checkArchitecture(t.dir, FOLDERS)).violations.map(describeViolation);
  } finally {
    t.dispose();
  }
}

test('the rule set: a clean layered tree passes', async () => {
  assert.deepEqual(await violationsOf({}), []);
});

test('the rule set fails on a deliberate back-import (ingest -> processors, clickhouse -> query-api, floor -> roof)', async () => {
  const v = await violationsOf({
    'ingest/bad.ts': "import { W } from '../processors/writer.ts';\nexport const B = W;\n",
    'clickhouse/bad.ts': "import { R } from '../query-api/route.ts';\nexport const B = R;\n",
    'ops/floor/bad.ts': "import { X } from '../roof/cli.ts';\nexport const B = X;\n",
  });
  assert.deepEqual(v.sort(), [
    'layer-clickhouse: clickhouse/bad.ts -> query-api/route.ts',
    'layer-floor: ops/floor/bad.ts -> ops/roof/cli.ts',
    'layer-ingest: ingest/bad.ts -> processors/writer.ts',
  ]);
});

test('the rule set fails on an import cycle inside one layer, and on I/O or store imports in pure analytics', async () => {
  const v = await violationsOf({
    'query-api/a.ts': "import { B } from './b.ts';\nexport const A = B;\n",
    'query-api/b.ts': "import type { A } from './a.ts';\nexport const B = 1 as unknown as typeof A;\n",
    'processors/analytics/io.ts': "import { readFileSync } from 'node:fs';\nimport { S } from '../../clickhouse/store.ts';\nexport const I = [readFileSync, S];\n",
  });
  assert.ok(v.some((x) => x.startsWith('no-cycles: query-api/a.ts -> query-api/b.ts') || x.startsWith('no-cycles: query-api/b.ts -> query-api/a.ts')), v.join('\n'));
  assert.ok(v.includes('analytics-pure-store: processors/analytics/io.ts -> clickhouse/store.ts'), v.join('\n'));
  assert.ok(v.some((x) => x.startsWith('analytics-pure-io: processors/analytics/io.ts -> ') && x.includes('fs')), v.join('\n'));
});
