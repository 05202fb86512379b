import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { perpTrade } from '#clickhouse/testing/fixtures.ts';
import { computeRange, type RangeData } from '#processors/analytics/range.ts';

const root = new URL('../../', import.meta.url).pathname;
const gex = (args: readonly string[]) => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'app/cli/main.ts', ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, LOG_LEVEL: 'warn' },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};

const H = 3_600_000;
const L1 = Date.UTC(2026, 2, 10, 12);
const NOW = '2026-03-10T12:30:00Z';

test('gex range recomputes /v2/options/range from a DVOL REST reply + vol_index events and perp-trade lines', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gex-range-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const dvol = join(dir, 'dvol.jsonl');
  const prices = join(dir, 'prices.jsonl');
  const candles = [0, 1, 2].map((i) => [L1 + (i - 3) * H, 50, 51, 49, 50]);
  writeFileSync(
    dvol,
    [
      JSON.stringify({ jsonrpc: '2.0', result: { data: candles, continuation: null } }),
      JSON.stringify({ type: 'index', event: { kind: 'vol_index', ts: L1 + 1, value: 50 } }),
      JSON.stringify({ ts: L1 + 20 * 60_000, value: 60 }),
      JSON.stringify({ ts: L1 + 40 * 60_000, value: 99 }), // after --now: ignored
      'junk',
    ].join('\n'),
  );
  const trade = (ts: number, price: number) => JSON.stringify({ type: 'perp_trade', event: { ...perpTrade, ts, price } });
  writeFileSync(
    prices,
    [
      trade(L1 - 3 * H, 100),
      trade(L1 - 2 * H + 5, 100.05),
      trade(L1 - H, 103),
      trade(L1 - H + 9, 90),
      trade(L1 + 10, 103),
      trade(L1 + 60_000, 104),
    ].join('\n'),
  );

  const r = gex(['range', '--dvol', dvol, '--prices', prices, '--now', NOW, '--past']);
  assert.equal(r.code, 0, r.stderr);
  const data = JSON.parse(r.stdout) as RangeData & { symbol: string };
  const want = computeRange({
    now: Date.parse(NOW),
    spot: 104,
    dvol: 60,
    historyFloor: null,
    includePast: true,
    prices: [100, 100.05, 103, 103].map((value, i) => ({ t: L1 + (i - 3) * H, value })),
    dvols: [0, 1, 2, 3].map((i) => ({ t: L1 + (i - 3) * H, value: 50 })),
  });
  assert.deepEqual(data, JSON.parse(JSON.stringify({ symbol: 'BTCUSDT', ...want })));
  assert.deepEqual(data.horizons['1h'].hit_rate, { '68': 0.666667, '90': 0.666667, rows: 3 });
  assert.match(r.stderr, /"dvol_points":5,"price_points":6,"lines_skipped":1/);

  assert.equal(gex(['range', '--dvol', dvol]).code, 2);
  assert.equal(gex(['range', '--dvol', dvol, '--prices', prices, '--symbol', 'SOLUSDT']).code, 2);
  assert.equal(gex(['range', '--dvol', join(dir, 'missing'), '--prices', prices]).code, 2);
});
