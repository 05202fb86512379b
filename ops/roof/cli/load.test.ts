import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));

test('gex load: progress on stderr, a summary line per file, exit 1 when a file is refused (file:line reported)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gex-load-'));
  try {
    const bad = join(dir, 'etf_flows_us_sol_bad.csv');
    writeFileSync(bad, 'date,AAA,Total\n2026-03-02,1,1\n2026-03-03,1,x\n');
    const run = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'ops/roof/cli/main.ts', 'load', ...args, '--data-dir', join(dir, 'data')], { cwd: root, encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'warn' } });
    const ok = run(['cot', 'ingest/reference/fixtures/cftc_legacy_futures_only_2025_slice.txt']);
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal(ok.stdout, 'ingest/reference/fixtures/cftc_legacy_futures_only_2025_slice.txt: 40 written, 0 skipped\n');
    assert.match(ok.stderr, /40\/40 rows written to cot_positions/);
    const refused = run(['etf', bad]);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /etf_flows_us_sol_bad\.csv:3: bad number 'x' in column 3/);
    assert.match(refused.stdout, /refused \(1 invalid rows\)/);
    assert.equal(run(['gold', bad]).status, 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
