import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkArchitecture, describeViolation } from './check.ts';
import { FOLDERS } from './layers.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

test('the repository keeps the folder graph: no back-import, no cycle, pure analytics, every import resolves', async () => {
  const report = await checkArchitecture(ROOT);
  assert.ok(report.modules > 300, `cruised only ${report.modules} modules`);
  assert.deepEqual(report.violations.map(describeViolation), []);
});

const PATHS = ['schemas', 'platform', 'bus', 'clickhouse', 'ingest', 'processors', 'query-api', 'sandbox', 'app', 'tools'];

/** package.json of the throwaway tree: a `#folder/` subpath alias per folder, as in the repository. */
function packageJsonWithAliases(): string {
  const imports: Record<string, string> = {};
  for (const p of PATHS) imports[`#${p}/` + '*'] = `./${p}/` + '*';
  return JSON.stringify({ type: 'module', imports });
}

/** A throwaway tree with one module per folder and the given extra files. */
function tree(files: Record<string, string>): { dir: string; dispose: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'arch-'));
  const base: Record<string, string> = {
    'schemas/events.ts': 'export const A = 1;\n',
    'platform/log.ts': "import { A } from '../schemas/events.ts';\nexport const L = A;\n",
    'bus/types.ts': "import { L } from '../platform/log.ts';\nexport const U = L;\n",
    'clickhouse/store.ts': "import { L } from '../platform/log.ts';\nexport const S = L;\n",
    'ingest/connector.ts': "import { S } from '../clickhouse/store.ts';\nimport { U } from '../bus/types.ts';\nexport const C = S + U;\n",
    'processors/analytics/gex.ts': "import { A } from '../../schemas/events.ts';\nexport const G = A;\n",
    'processors/writer.ts': "import { S } from '../clickhouse/store.ts';\nexport const W = S;\n",
    'query-api/route.ts': "import { G } from '../processors/analytics/gex.ts';\nexport const R = G;\n",
    'sandbox/market.ts': "import { C } from '../ingest/connector.ts';\nexport const M = C;\n",
    'app/cli.ts': "import { R } from '../query-api/route.ts';\nimport { M } from '../sandbox/market.ts';\nexport const X = R + M;\n",
    'tools/chaos.ts': "import { X } from '../app/cli.ts';\nexport const H = X;\n",
    'package.json': packageJsonWithAliases(),
  };
  for (const [path, text] of Object.entries({ ...base, ...files })) {
    mkdirSync(join(dir, dirname(path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

async function violationsOf(files: Record<string, string>): Promise<string[]> {
  const t = tree(files);
  try {
    return (await checkArchitecture(t.dir, PATHS)).violations.map(describeViolation);
  } finally {
    t.dispose();
  }
}

test('the rule set: a clean tree that follows the folder graph passes', async () => {
  assert.deepEqual(await violationsOf({}), []);
});

test('the rule set fails on a deliberate back-import (ingest -> processors, clickhouse -> query-api, platform -> bus, query-api -> sandbox, sandbox -> app, app -> tools)', async () => {
  const v = await violationsOf({
    'ingest/bad.ts': "import { W } from '../processors/writer.ts';\nexport const B = W;\n",
    'clickhouse/bad.ts': "import { R } from '../query-api/route.ts';\nexport const B = R;\n",
    'platform/bad.ts': "import { U } from '../bus/types.ts';\nexport const B = U;\n",
    'query-api/bad.ts': "import { M } from '../sandbox/market.ts';\nexport const B = M;\n",
    'sandbox/bad.ts': "import { X } from '../app/cli.ts';\nexport const B = X;\n",
    'app/bad.ts': "import { H } from '../tools/chaos.ts';\nexport const B = H;\n",
  });
  assert.deepEqual(v.sort(), [
    'folder-app: app/bad.ts -> tools/chaos.ts',
    'folder-clickhouse: clickhouse/bad.ts -> query-api/route.ts',
    'folder-ingest: ingest/bad.ts -> processors/writer.ts',
    'folder-platform: platform/bad.ts -> bus/types.ts',
    'folder-query-api: query-api/bad.ts -> sandbox/market.ts',
    'folder-sandbox: sandbox/bad.ts -> app/cli.ts',
  ]);
});

test('imports through the package.json aliases (#folder/...) are held to the same graph', async () => {
  const v = await violationsOf({
    'query-api/alias-ok.ts': "import { S } from '#clickhouse/store.ts';\nexport const B = S;\n",
    'ingest/alias-bad.ts': "import { W } from '#processors/writer.ts';\nexport const B = W;\n",
  });
  assert.deepEqual(v, ['folder-ingest: ingest/alias-bad.ts -> processors/writer.ts']);
});

test('the rule set fails on an import between siblings that the graph does not list (bus -> clickhouse)', async () => {
  const v = await violationsOf({ 'bus/bad.ts': "import { S } from '../clickhouse/store.ts';\nexport const B = S;\n" });
  assert.deepEqual(v, ['folder-bus: bus/bad.ts -> clickhouse/store.ts']);
});

test('the folder graph has no upward arrow: each folder uses only folders listed before it', () => {
  const seen = new Set<string>();
  for (const f of FOLDERS) {
    for (const u of f.uses) assert.ok(seen.has(u), `${f.name} uses ${u}, which is not below it`);
    seen.add(f.name);
  }
});

test('a product module that imports a test library fails; a testing/ folder and a test file may', async () => {
  const v = await violationsOf({
    'ingest/helper.ts': "import assert from 'node:assert/strict';\nexport const H = assert;\n",
    'ingest/testing/helper.ts': "import assert from 'node:assert/strict';\nexport const T = assert;\n",
    'ingest/connector.test.ts': "import { test } from 'node:test';\ntest('x', () => undefined);\n",
  });
  assert.equal(v.length, 1, v.join('\n'));
  assert.ok(v[0]?.startsWith('test-support-in-testing: ingest/helper.ts -> '), v.join('\n'));
});

test('the rule set fails on an import cycle inside one folder, and on I/O or store imports in pure analytics', async () => {
  const v = await violationsOf({
    'query-api/a.ts': "import { B } from './b.ts';\nexport const A = B;\n",
    'query-api/b.ts': "import type { A } from './a.ts';\nexport const B = 1 as unknown as typeof A;\n",
    'processors/analytics/io.ts':
      "import { readFileSync } from 'node:fs';\nimport { S } from '../../clickhouse/store.ts';\nexport const I = [readFileSync, S];\n",
  });
  assert.ok(
    v.some(
      (x) => x.startsWith('no-cycles: query-api/a.ts -> query-api/b.ts') || x.startsWith('no-cycles: query-api/b.ts -> query-api/a.ts'),
    ),
    v.join('\n'),
  );
  assert.ok(v.includes('analytics-pure-store: processors/analytics/io.ts -> clickhouse/store.ts'), v.join('\n'));
  assert.ok(
    v.some((x) => x.startsWith('analytics-pure-io: processors/analytics/io.ts -> ') && x.includes('fs')),
    v.join('\n'),
  );
});
