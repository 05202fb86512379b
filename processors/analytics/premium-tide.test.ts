import { test } from 'node:test';
import assert from 'node:assert/strict';
import { premiumTide } from './premium-tide.ts';

test('premium tide: call/put net premium and notional per bucket, zero-filled grid, running sums', () => {
  const pts = premiumTide(
    [
      { t: 0, type: 'call', side: 'buy', premium: 1_000, notional: 50_000 },
      { t: 0, type: 'call', side: 'sell', premium: 300, notional: 20_000 },
      { t: 0, type: 'put', side: 'buy', premium: 200, notional: 10_000 },
      { t: 600, type: 'put', side: 'sell', premium: 500, notional: 30_000 },
      { t: 600, type: 'call', side: 'buy', premium: 100, notional: 5_000 },
      { t: 900, type: 'call', side: 'buy', premium: 7, notional: 7 }, // after the grid: ignored
    ],
    0,
    650,
    300,
  );
  assert.deepEqual(
    pts.map((p) => p.t),
    [0, 300, 600],
  );
  // bucket 0: call net 1,000 − 300 = 700, put net +200, net 500, notional 70,000 / 10,000
  assert.deepEqual(pts[0], {
    t: 0,
    call_net_premium_usd: 700,
    put_net_premium_usd: 200,
    net_premium_usd: 500,
    call_notional_usd: 70_000,
    put_notional_usd: 10_000,
    cum_call_net_premium_usd: 700,
    cum_put_net_premium_usd: 200,
    cum_net_premium_usd: 500,
  });
  assert.deepEqual([pts[1]?.net_premium_usd, pts[1]?.cum_net_premium_usd], [0, 500]);
  // bucket 600: call +100, put −500 → net 600; cumulative call 800, put −300, net 1,100
  assert.deepEqual(pts[2], {
    t: 600,
    call_net_premium_usd: 100,
    put_net_premium_usd: -500,
    net_premium_usd: 600,
    call_notional_usd: 5_000,
    put_notional_usd: 30_000,
    cum_call_net_premium_usd: 800,
    cum_put_net_premium_usd: -300,
    cum_net_premium_usd: 1_100,
  });
  assert.deepEqual(premiumTide([], 10, 5, 1), []);
});
