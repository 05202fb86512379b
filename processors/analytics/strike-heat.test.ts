import { test } from 'node:test';
import assert from 'node:assert/strict';
import { strikeHeat } from './strike-heat.ts';

test('strike heat: per-strike buy/sell/net/total premium and counts, ranked by |net|, ties by total then strike', () => {
  const rows = strikeHeat(
    [
      { strike: 100_000, side: 'buy', premium: 50_000, trades: 5 },
      { strike: 100_000, side: 'sell', premium: 20_000, trades: 2 }, // net +30,000, total 70,000
      { strike: 95_000, side: 'sell', premium: 40_000, trades: 4 }, // net −40,000
      { strike: 110_000, side: 'buy', premium: 10_000, trades: 1 },
      { strike: 110_000, side: 'sell', premium: 40_000, trades: 3 }, // net −30,000, total 50,000: after 100k
      { strike: 90_000, side: 'buy', premium: 30_000, trades: 1 }, // net +30,000, total 30,000
      { strike: 120_000, side: 'buy', premium: 30_000, trades: 1 }, // same as 90k: lower strike first
      { strike: 105_000, side: 'buy', premium: 1_000, trades: 1 },
    ],
    5,
  );
  assert.deepEqual(
    rows.map((r) => [r.strike, r.net_premium_usd, r.total_premium_usd]),
    [
      [95_000, -40_000, 40_000],
      [100_000, 30_000, 70_000],
      [110_000, -30_000, 50_000],
      [90_000, 30_000, 30_000],
      [120_000, 30_000, 30_000],
    ],
  );
  assert.deepEqual(rows[1], {
    strike: 100_000,
    buy_premium_usd: 50_000,
    sell_premium_usd: 20_000,
    net_premium_usd: 30_000,
    total_premium_usd: 70_000,
    trades: 7,
    buy_trades: 5,
    sell_trades: 2,
  });
  assert.deepEqual(strikeHeat([], 5), []);
});
