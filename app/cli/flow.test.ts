import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { optionTrade } from '#clickhouse/testing/fixtures.ts';
import type { OptionTrade } from '#schemas/events.ts';

const root = new URL('../../', import.meta.url).pathname;
const gex = (args: readonly string[], input?: string) => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'app/cli/main.ts', ...args], {
    cwd: root,
    input,
    encoding: 'utf8',
    env: { ...process.env, LOG_LEVEL: 'warn' },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};

const NOW = '2026-03-10T12:02:30Z';
const at = (h: number, m: number): number => Date.UTC(2026, 2, 10, h, m);
const NEAR = Date.UTC(2026, 2, 11, 8, 0);
const trade = (i: number, o: Partial<OptionTrade>): OptionTrade => ({
  ...optionTrade(0),
  id: `x:${i}`,
  tradeId: String(i),
  expiry: NEAR,
  indexPrice: 100_000,
  ...o,
});
const trades = [
  trade(1, { venue: 'deribit', ts: at(11, 1), strike: 100_000, optionType: 'call', side: 'buy', size: 10, premiumUsd: 1_000 }),
  trade(2, { venue: 'deribit', ts: at(11, 3), strike: 100_000, optionType: 'call', side: 'sell', size: 2, premiumUsd: 300 }),
  trade(3, { venue: 'okx', ts: at(11, 4), strike: 100_000, optionType: 'put', side: 'sell', size: 5, premiumUsd: 200 }),
  trade(4, { venue: 'okx', ts: at(11, 5), strike: 100_000, optionType: 'put', side: 'buy', size: 1, premiumUsd: 50 }),
  trade(5, { venue: 'deribit', ts: at(12, 5), strike: 90_000, optionType: 'put', side: 'buy', size: 1, premiumUsd: 7 }), // after --now
];
const lines = [
  ...trades.map((e) => JSON.stringify({ type: 'option_trade', event: e })),
  JSON.stringify({ type: 'option_trade', event: trades[0] }),
  JSON.stringify({ type: 'index', event: {} }),
  'not json',
].join('\n');

test('gex flow recomputes flow-by-strike, strike-heat and premium-tide from JSON-line trades', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gex-flow-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'trades.jsonl');
  writeFileSync(file, lines);

  const byStrike = gex(['flow', '--trades', file, '--now', NOW]);
  assert.equal(byStrike.code, 0, byStrike.stderr);
  const d = JSON.parse(byStrike.stdout) as {
    strikes: { strike: number; call_buy: { size: number } }[];
    by_venue: { venue: string; net_size: number }[][];
    venue_disagreement: unknown;
  };
  assert.deepEqual(
    d.strikes.map((s) => [s.strike, s.call_buy.size]),
    [[100_000, 10]],
  ); // the copy of trade 1 counted once
  // deribit sold 2 − bought 10 = −8; okx sold 5 − bought 1 = +4
  assert.deepEqual(
    d.by_venue[0]?.map((v) => [v.venue, v.net_size]),
    [
      ['deribit', -8],
      ['okx', 4],
    ],
  );
  assert.deepEqual(d.venue_disagreement, { strikes_compared: 1, strikes_disagreeing: 1, share: 1 });
  assert.match(byStrike.stderr, /"trades_read":6,"trades_used":4,"lines_skipped":2/);

  const heat = JSON.parse(gex(['flow', '--strike-heat', '--now', NOW], lines).stdout) as {
    strikes: { strike: number; net_premium_usd: number; total_premium_usd: number }[];
  };
  // buys 1,000 + 50, sells 300 + 200 → net 550, total 1,550
  assert.deepEqual(
    heat.strikes.map((s) => [s.strike, s.net_premium_usd, s.total_premium_usd]),
    [[100_000, 550, 1_550]],
  );

  const tide = JSON.parse(gex(['flow', '--trades', file, '--premium-tide', '--now', NOW]).stdout) as {
    points: { t: string; call_net_premium_usd: number; call_notional_usd: number; cum_net_premium_usd: number }[];
  };
  assert.equal(tide.points.length, 145);
  const p = tide.points.find((x) => x.t === '2026-03-10T11:00:00.000Z');
  // deribit only: call 1,000 − 300 = 700, notional (10 + 2) × 100,000
  assert.deepEqual([p?.call_net_premium_usd, p?.call_notional_usd, tide.points[144]?.cum_net_premium_usd], [700, 1_200_000, 700]);

  assert.equal(gex(['flow', '--now', 'yesterday'], '').code, 2);
  assert.equal(gex(['flow', '--by-strike', '--strike-heat'], '').code, 2);
});
