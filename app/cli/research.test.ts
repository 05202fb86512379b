import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const F = 'ingest/reference/fixtures';
function gex(args: readonly string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'app/cli/main.ts', ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, LOG_LEVEL: 'warn' },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('gex cot --file F --market CODE prints the /v2/cot/instrument data; without --market the summary of every market', () => {
  const r = gex(['cot', '--file', `${F}/cftc_tff_futures_only_2026_slice.txt`, '--market', '090741', '--span', '1y']);
  assert.equal(r.code, 0, r.stderr);
  const d = JSON.parse(r.stdout) as {
    id: string;
    report: string;
    smart: string;
    fast: string;
    history: { date: string; categories: { net: number; percentile_1y: number | null }[] }[];
  };
  assert.deepEqual([d.id, d.report, d.smart, d.fast, d.history.length], ['090741', 'tff', 'asset_mgr', 'lev_money', 11]);
  assert.deepEqual(
    d.history.at(-1)?.categories.map((c) => c.net),
    [44757 - 54576, 75094 - 45026, 26293 - 64145, 13761 - 1478, 29911 - 24591],
  );
  const all = gex(['cot', '--file', `${F}/cftc_tff_futures_only_2026_slice.txt`, `${F}/cftc_legacy_futures_only_2025_slice.txt`]);
  assert.equal(all.code, 0, all.stderr);
  const s = JSON.parse(all.stdout) as { asset_class: string; rows: { id: string; report: string }[] };
  assert.equal(s.asset_class, 'all');
  assert.equal(s.rows.length, 16); // 13 TFF markets + Corn, Gold, ICE WTI (Bitcoin read from TFF, not Legacy)
  assert.equal(s.rows.find((x) => x.id === '133741')?.report, 'tff');
  assert.equal(gex(['cot', '--file', `${F}/cftc_tff_futures_only_2026_slice.txt`, '--market', '999999']).code, 2);
  assert.equal(gex(['cot']).code, 2);
  const bad = gex(['cot', '--file', `${F}/etf_flows_us_btc_usd_millions.csv`]);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /etf_flows_us_btc_usd_millions\.csv:1: not a CFTC COT file/);
});

test('gex holders --file F… --ticker T prints the /v2/filings/holders data; a restatement replaces the filing', () => {
  const files = ['beta_2025q4', 'beta_2026q1', 'alpha_2026q1'].flatMap((n) => [
    `${F}/sec_13f_synthetic_${n}_primary.xml`,
    `${F}/sec_13f_synthetic_${n}_infotable.xml`,
  ]);
  const r = gex(['holders', '--file', ...files, '--ticker', 'MSTR']);
  assert.equal(r.code, 0, r.stderr);
  const d = JSON.parse(r.stdout) as { period_end: string; holders: { name: string; shares: number; share_change: number | null }[] };
  assert.equal(d.period_end, '2026-03-31');
  assert.deepEqual(
    d.holders.map((h) => [h.name, h.shares, h.share_change]),
    [
      ['ALPHA CAPITAL MANAGEMENT LLC', 120000, null],
      ['BETA ADVISORS LP', 40000, 0],
    ],
  );
  assert.equal(gex(['holders', '--file', files[0] as string, '--ticker', 'TSLA']).code, 2);
  const orphan = gex(['holders', '--file', files[1] as string, '--ticker', 'MSTR']);
  assert.equal(orphan.code, 1);
  assert.match(orphan.stderr, /without a primary document/);
});
