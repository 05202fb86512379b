import { test } from 'node:test';
import assert from 'node:assert/strict';
import { flowByStrike, type FlowCell } from './flow-by-strike.ts';

const c = (strike: number, type: string, side: string, venue: string, size: number, premium: number, trades: number): FlowCell => ({
  strike,
  type,
  side,
  venue,
  size,
  premium,
  trades,
});

test('flow by strike: four quadrants, per-venue net_size = sold − bought, disagreement over strikes with ≥ 2 venues', () => {
  const r = flowByStrike([
    c(100_000, 'call', 'buy', 'deribit', 10, 20_000, 4),
    c(100_000, 'call', 'sell', 'deribit', 2, 4_000, 1),
    c(100_000, 'put', 'sell', 'okx', 5, 3_000, 2),
    c(100_000, 'put', 'buy', 'okx', 1, 600, 1),
    c(90_000, 'put', 'buy', 'deribit', 3, 900, 3),
    c(90_000, 'call', 'buy', 'bybit', 1, 100, 1),
    c(110_000, 'call', 'sell', 'deribit', 7, 700, 1),
  ]);
  assert.deepEqual(
    r.strikes.map((s) => s.strike),
    [90_000, 100_000, 110_000],
  );
  assert.deepEqual(r.strikes[1], {
    strike: 100_000,
    call_buy: { size: 10, premium_usd: 20_000, trades: 4 },
    call_sell: { size: 2, premium_usd: 4_000, trades: 1 },
    put_buy: { size: 1, premium_usd: 600, trades: 1 },
    put_sell: { size: 5, premium_usd: 3_000, trades: 2 },
  });
  // 100k: deribit sold 2 − bought 10 = −8; okx sold 5 − bought 1 = +4 → disagree.
  // 90k: bybit −1, deribit −3 → agree. 110k: one venue → not compared.
  assert.deepEqual(r.by_venue[1], [
    { venue: 'deribit', bought: 10, sold: 2, net_size: -8 },
    { venue: 'okx', bought: 1, sold: 5, net_size: 4 },
  ]);
  assert.deepEqual(
    r.by_venue[0]?.map((v) => [v.venue, v.net_size]),
    [
      ['bybit', -1],
      ['deribit', -3],
    ],
  );
  assert.deepEqual(r.by_venue[2], [{ venue: 'deribit', bought: 0, sold: 7, net_size: 7 }]);
  assert.deepEqual(r.venue_disagreement, { strikes_compared: 2, strikes_disagreeing: 1, share: 0.5 });
  assert.deepEqual(flowByStrike([]), {
    strikes: [],
    by_venue: [],
    venue_disagreement: { strikes_compared: 0, strikes_disagreeing: 0, share: null },
  });
});
