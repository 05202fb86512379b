import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { zip } from '#ingest/reference/testing/zip-writer.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

test('gex load: progress on stderr, a summary line per file, exit 1 when a file is refused (file:line reported)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gex-load-'));
  try {
    const bad = join(dir, 'etf_flows_us_sol_bad.csv');
    writeFileSync(bad, 'date,AAA,Total\n2026-03-02,1,1\n2026-03-03,1,x\n');
    const run = (args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'app/cli/main.ts', 'load', ...args, '--data-dir', join(dir, 'data')], {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, LOG_LEVEL: 'warn' },
      });
    const ok = run(['cot', 'ingest/reference/fixtures/cftc_legacy_futures_only_2025_slice.txt']);
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal(ok.stdout, 'ingest/reference/fixtures/cftc_legacy_futures_only_2025_slice.txt: 40 written, 0 skipped\n');
    assert.match(ok.stderr, /40\/40 rows written to cot_positions/);
    const refused = run(['etf', bad]);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /etf_flows_us_sol_bad\.csv:3: bad number 'x' in column 3/);
    assert.match(refused.stdout, /refused \(1 invalid rows\)/);
    assert.equal(run(['gold', bad]).status, 2);
    const tff = readFileSync(join(root, 'ingest/reference/fixtures/cftc_tff_futures_only_2026_slice.txt'));
    const year = join(dir, 'fut_fin_txt_2026.zip');
    const twoMembers = join(dir, 'two.zip');
    writeFileSync(year, zip([{ name: 'FinFutYY.txt', data: tff }]));
    writeFileSync(
      twoMembers,
      zip([
        { name: 'a.txt', data: tff },
        { name: 'b.txt', data: tff },
      ]),
    );
    const week = 'ingest/reference/fixtures/headerless_cftc_tff_futures_only_2026_slice.txt';
    const official = run(['cot', '--report', 'tff', year, week, twoMembers]);
    assert.equal(official.status, 1, official.stderr);
    assert.equal(
      official.stdout,
      `${twoMembers}: refused (1 invalid rows)\n${year}:FinFutYY.txt: 118 written, 0 skipped\n${week}: 118 written, 0 skipped\n`,
    );
    assert.match(official.stderr, /two\.zip:1: zip archive holds 2 files \(a\.txt, b\.txt\); expected exactly one/);
    assert.equal(run(['cot', '--report', 'weekly', week]).status, 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
