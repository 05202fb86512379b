import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { computeGreeksFromChain, parseChainFile } from '#processors/analytics/chain-file.ts';

const root = new URL('../../', import.meta.url).pathname;
const FIXTURE = 'test/fixtures/chain-synthetic-11-5.json';
function gex(args: readonly string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'app/cli/main.ts', ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, LOG_LEVEL: 'warn' },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('gex greeks --greek gamma on the §11.5 chain: total +$2,230,237 per 1%, the route data builder byte for byte', () => {
  const r = gex(['greeks', '--chain', FIXTURE, '--greek', 'gamma', '--model', 'std']);
  assert.equal(r.code, 0, r.stderr);
  const data = JSON.parse(r.stdout) as { total: number; unit: string; positioning: string; by_strike: unknown[] };
  assert.ok(Math.abs(data.total - 2_230_237) < 1, `total ${data.total}`);
  assert.equal(data.unit, 'usd_delta_per_1pct_move');
  assert.equal(data.positioning, 'std');
  assert.equal(data.by_strike.length, 7);
  const parsed = parseChainFile(JSON.parse(readFileSync(new URL(FIXTURE, `file://${root}`), 'utf8')));
  assert.ok(parsed.ok);
  assert.equal(r.stdout, `${JSON.stringify(computeGreeksFromChain(parsed.chain, 'gamma', 'std'), null, 2)}\n`);
});

test('gex greeks: vanna under flow falls back to std without inventories; bad flags exit 2', () => {
  const r = gex(['greeks', '--chain', FIXTURE, '--greek', 'vanna']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal((JSON.parse(r.stdout) as { positioning: string }).positioning, 'std');
  assert.equal(gex(['greeks', '--chain', FIXTURE, '--greek', 'rho']).code, 2);
  assert.equal(gex(['greeks', '--greek', 'gamma']).code, 2);
  assert.equal(gex(['greeks', '--chain', FIXTURE, '--greek', 'delta', '--model', 'naive']).code, 2);
});
