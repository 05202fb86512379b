import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { computeLevelsFromChain } from './chain-file.ts';
import { rankCandidates } from './levels.ts';
import { gamma } from './black76.ts';
import { DAY_MS, chain115, chainOf, inst } from './testing/test-chains.ts';

function near(got: number | null | undefined, want: number, tol: number, what: string): void {
  assert.ok(typeof got === 'number' && Math.abs(got - want) <= tol, `${what}: got ${got}, want ${want} ± ${tol}`);
}

describe('§11.5 synthetic chain (std)', () => {
  const l = computeLevelsFromChain(chain115(), 'std');
  test('total net GEX +$2,230,237 per 1%', () => near(l.all_expiry.net_gex, 2_230_237, 0.5, 'net'));
  test('call resistance 105000, 100000, 110000', () => {
    assert.deepEqual([l.all_expiry.call_resistance, l.all_expiry.call_wall_2, l.all_expiry.call_wall_3], [105_000, 100_000, 110_000]);
  });
  test('put support 95000, 100000, 90000', () => {
    assert.deepEqual([l.all_expiry.put_support, l.all_expiry.put_wall_2, l.all_expiry.put_wall_3], [95_000, 100_000, 90_000]);
  });
  test('zero gamma (hvl) 98,988.13; one neg_to_pos flip zone bracketing it', () => {
    near(l.all_expiry.hvl, 98_988.13, 0.01, 'hvl');
    assert.equal(l.all_expiry.hvl_reason, undefined);
    assert.equal(l.gamma_flip_zones?.length, 1);
    const z = l.gamma_flip_zones?.[0];
    assert.equal(z?.direction, 'neg_to_pos');
    assert.equal(z?.lower, 98_750);
    assert.equal(z?.upper, 99_000);
    near(z?.level, 98_988.13, 0.01, 'zone level');
  });
  test('max pain 100000 with payout exactly $5,800,000', () => {
    assert.deepEqual(l.max_pain, { strike: 100_000, value: 5_800_000 });
  });
  test('expected move uses the 24 h horizon: S·exp(±z·0.5·√(1/365))', () => {
    const m = 0.5 * Math.sqrt(1 / 365);
    near(l.expected_move?.upper_1sd, 100_000 * Math.exp(m), 1e-6, 'u1');
    near(l.expected_move?.lower_2sd, 100_000 * Math.exp(-2 * m), 1e-6, 'l2');
    assert.equal(l.expected_move?.horizon_hours, 24);
  });
  test('no expiry within 24 h -> odte block null with reason', () => {
    assert.equal(l.odte.hvl, null);
    assert.equal(l.odte.call_resistance, null);
    assert.equal(l.odte.put_support, null);
    assert.equal(l.odte.reason, 'no_expiry_within_24h');
    assert.deepEqual(l.ranked?.odte_top_10, []);
  });
  test('ranked top 10 by |net GEX|, spot block, positioning', () => {
    assert.deepEqual(
      l.ranked?.all_expiry_top_10.map((r) => r.strike),
      [105_000, 95_000, 110_000, 90_000, 100_000, 115_000, 85_000],
    );
    const r0 = l.ranked?.all_expiry_top_10[0];
    near(r0?.net_gex, (r0?.call_gex ?? 0) + (r0?.put_gex ?? 0), 1e-6, 'net = call + put');
    assert.deepEqual(l.spot, { spot_price: 100_000, perps_price: 100_050 });
    assert.equal(l.positioning, 'std');
  });
  test('per-strike GEX is Γ·OI·S²·0.01 (105k call)', () => {
    const g = gamma(100_000, 105_000, 0.5, 7 / 365);
    const r = l.ranked?.all_expiry_top_10.find((x) => x.strike === 105_000);
    near(r?.call_gex, g * 1400 * 1e10 * 0.01, 1e-6, 'call gex');
    near(r?.put_gex, -g * 250 * 1e10 * 0.01, 1e-6, 'put gex');
  });
});

describe('§11.5 profile and by-strike blocks (std)', () => {
  const l = computeLevelsFromChain(chain115(), 'std');
  test('by_strike: every strike ascending, call/put GEX = Γ·OI·S²·0.01 with the dealer sign, net = call + put, Σ net = net_gex', () => {
    const b = l.by_strike;
    assert.ok(b !== undefined);
    assert.deepEqual(b.strikes, [85_000, 90_000, 95_000, 100_000, 105_000, 110_000, 115_000]);
    assert.deepEqual(b.call_oi, [50, 120, 300, 800, 1400, 1100, 600]);
    assert.deepEqual(b.put_oi, [900, 1500, 1200, 700, 250, 80, 20]);
    const g = gamma(100_000, 105_000, 0.5, 7 / 365);
    near(b.call_gex[4], g * 1400 * 1e10 * 0.01, 1e-6, 'call 105k');
    near(b.put_gex[4], -g * 250 * 1e10 * 0.01, 1e-6, 'put 105k');
    b.net_gex.forEach((n, i) => near(n, (b.call_gex[i] ?? 0) + (b.put_gex[i] ?? 0), 1e-9, `net ${i}`));
    near(
      b.net_gex.reduce((a, x) => a + x, 0),
      2_230_237,
      0.5,
      'sum',
    );
  });
  test('profile: 201 spots from 75,000 to 125,000 by 250; G(0) = net GEX at spot; the sign change brackets hvl (98,750 -> 99,000)', () => {
    const p = l.profile;
    assert.ok(p !== undefined);
    assert.equal(p.spot.length, 201);
    assert.equal(p.net_gex.length, 201);
    near(p.spot[0], 75_000, 1e-9, 'first');
    near(p.spot[100], 100_000, 0, 'spot');
    near(p.spot[200], 125_000, 1e-9, 'last');
    near(p.spot[95], 98_750, 1e-9, 'x = -1.25%');
    near(p.net_gex[100], 2_230_237, 0.5, 'G(0)');
    assert.ok((p.net_gex[95] ?? 0) < 0 && (p.net_gex[96] ?? 0) > 0, 'neg_to_pos between 98,750 and 99,000');
    assert.equal(p.odte_net_gex, null);
  });
  test('the flow model fills the blocks from the flow arrays (no inventory: std fallback, same numbers)', () => {
    const f = computeLevelsFromChain(chain115(), 'flow');
    assert.equal(f.positioning, 'std');
    assert.deepEqual(f.by_strike, l.by_strike);
    assert.deepEqual(f.profile, l.profile);
  });
});

describe('null cases', () => {
  test('empty chain: every level null, no_gamma, max pain and expected move null', () => {
    const l = computeLevelsFromChain(chainOf([]), 'std');
    assert.equal(l.all_expiry.hvl, null);
    assert.equal(l.all_expiry.hvl_reason, 'no_gamma');
    assert.equal(l.all_expiry.call_resistance, null);
    assert.equal(l.all_expiry.put_support, null);
    assert.equal(l.all_expiry.net_gex, 0);
    assert.equal(l.max_pain, null);
    assert.equal(l.expected_move, null);
    assert.deepEqual(l.gamma_flip_zones, []);
    assert.deepEqual(l.ranked?.all_expiry_top_10, []);
  });
  test('calls only: positive everywhere, puts null, walls 2/3 null', () => {
    const l = computeLevelsFromChain(chainOf([inst(100_000, 'call', 10)]), 'std');
    assert.equal(l.all_expiry.hvl, null);
    assert.equal(l.all_expiry.hvl_reason, 'positive_everywhere');
    assert.equal(l.all_expiry.call_resistance, 100_000);
    assert.equal(l.all_expiry.call_wall_2, null);
    assert.equal(l.all_expiry.put_support, null);
    assert.deepEqual(l.gamma_flip_zones, []);
  });
  test('puts only: negative everywhere', () => {
    const l = computeLevelsFromChain(chainOf([inst(95_000, 'put', 10), inst(90_000, 'put', 5)]), 'std');
    assert.equal(l.all_expiry.hvl_reason, 'negative_everywhere');
    assert.equal(l.all_expiry.put_support, 95_000);
    assert.equal(l.all_expiry.put_wall_2, 90_000);
    assert.equal(l.all_expiry.put_wall_3, null);
    assert.equal(l.all_expiry.call_resistance, null);
  });
  test('zero OI and missing IV rows are not walls; missing IV is counted', () => {
    const l = computeLevelsFromChain(
      chainOf([inst(100_000, 'call', 0), inst(105_000, 'call', 5, { markIv: null }), inst(110_000, 'call', 5, { markIv: 0 })]),
      'std',
    );
    assert.equal(l.all_expiry.call_resistance, null);
    assert.equal(l.diagnostics?.skipped_no_iv, 2);
    assert.equal(l.diagnostics?.instruments_used, 1);
    // Max pain still counts the open contracts without IV.
    assert.equal(l.max_pain?.strike, 100_000);
  });
  test('expired instruments are dropped and counted', () => {
    const l = computeLevelsFromChain(chainOf([inst(100_000, 'call', 5, { expiry: 0 }), inst(100_000, 'put', 5, { expiry: -5 })]), 'std');
    assert.equal(l.diagnostics?.dropped_expired, 2);
    assert.equal(l.all_expiry.call_resistance, null);
    assert.equal(l.max_pain, null);
  });
});

describe('0DTE', () => {
  const h = 3_600_000;
  const chain = chainOf([
    inst(100_000, 'call', 10, { expiry: 6 * h }),
    inst(98_000, 'put', 30, { expiry: 6 * h }),
    inst(102_000, 'call', 50, { expiry: 20 * h }),
    inst(110_000, 'call', 500),
    inst(90_000, 'put', 500),
  ]);
  test('earliest future expiry within 24 h is the 0DTE scope (only that expiry)', () => {
    const l = computeLevelsFromChain(chain, 'std');
    assert.equal(l.odte.expiry, new Date(6 * h).toISOString());
    assert.equal(l.odte.call_resistance, 100_000);
    assert.equal(l.odte.put_support, 98_000);
    assert.equal(l.odte.reason, undefined);
    assert.deepEqual(l.ranked?.odte_top_10.map((r) => r.strike).sort(), [100_000, 98_000].sort());
    // all-expiry walls see everything
    assert.equal(l.all_expiry.call_resistance, 110_000);
  });
  test('expiry exactly 24 h away is 0DTE; 24 h + 1 ms is not', () => {
    const at = computeLevelsFromChain(chainOf([inst(100_000, 'call', 1, { expiry: DAY_MS })]), 'std');
    assert.equal(at.odte.call_resistance, 100_000);
    const after = computeLevelsFromChain(chainOf([inst(100_000, 'call', 1, { expiry: DAY_MS + 1 })]), 'std');
    assert.equal(after.odte.reason, 'no_expiry_within_24h');
  });
  test('an expiry at now is expired, the next one within 24 h becomes 0DTE; tiny T is floored', () => {
    const l = computeLevelsFromChain(
      chainOf([inst(100_000, 'call', 1, { expiry: 0 }), inst(101_000, 'call', 1, { expiry: 60_000 })]),
      'std',
    );
    assert.equal(l.odte.expiry, new Date(60_000).toISOString());
    assert.equal(l.diagnostics?.t_floored, 1);
  });
});

describe('tie rules', () => {
  const c = (strike: number, value: number, oi: number) => ({ strike, value, oi, sign: 1 as const });
  test('larger value first', () => {
    assert.deepEqual(
      rankCandidates([c(1, 5, 1), c(2, 7, 1)], 0).map((x) => x.strike),
      [2, 1],
    );
  });
  test('equal value -> larger OI', () => {
    assert.deepEqual(
      rankCandidates([c(1, 5, 1), c(2, 5, 3)], 0).map((x) => x.strike),
      [2, 1],
    );
  });
  test('equal value and OI -> closer to spot', () => {
    assert.deepEqual(
      rankCandidates([c(90, 5, 1), c(104, 5, 1)], 100).map((x) => x.strike),
      [104, 90],
    );
  });
  test('equal value, OI and distance -> lower strike', () => {
    assert.deepEqual(
      rankCandidates([c(105, 5, 1), c(95, 5, 1)], 100).map((x) => x.strike),
      [95, 105],
    );
  });
  test('zero values are not candidates', () => {
    assert.deepEqual(rankCandidates([c(1, 0, 9)], 0), []);
  });
  test('chain level: a strike sums its venues before ranking (10 + 10 at 100k beats 19 at 101k)', () => {
    const l = computeLevelsFromChain(
      chainOf([inst(100_000, 'call', 10), inst(100_000, 'call', 10, { venue: 'okx' }), inst(101_000, 'call', 19)]),
      'std',
    );
    assert.equal(l.all_expiry.call_resistance, 100_000);
    assert.equal(l.all_expiry.call_wall_2, 101_000);
  });
});

describe('flow model', () => {
  test('walls ranked by unsigned gamma dollars, sign reported; hvl from the flow profile', () => {
    const l = computeLevelsFromChain(
      chainOf([
        inst(100_000, 'call', 400, { dealerInventory: -300 }),
        inst(105_000, 'call', 400, { dealerInventory: 200 }),
        inst(95_000, 'put', 400, { dealerInventory: 150 }),
        inst(90_000, 'put', 400, { dealerInventory: -400 }),
      ]),
      'flow',
    );
    assert.equal(l.positioning, 'flow');
    assert.equal(l.all_expiry.call_resistance, 100_000);
    assert.equal(l.all_expiry.wall_signs.call_resistance, -1);
    assert.equal(l.all_expiry.call_wall_2, 105_000);
    assert.equal(l.all_expiry.wall_signs.call_wall_2, 1);
    // |Γ·inv| at 90k put (inv −400, further OTM) vs 95k put (inv 150): compare explicitly.
    const g90 = gamma(100_000, 90_000, 0.5, 7 / 365) * 400;
    const g95 = gamma(100_000, 95_000, 0.5, 7 / 365) * 150;
    assert.equal(l.all_expiry.put_support, g90 > g95 ? 90_000 : 95_000);
    const net =
      (-300 * gamma(100_000, 100_000, 0.5, 7 / 365) +
        200 * gamma(100_000, 105_000, 0.5, 7 / 365) +
        150 * gamma(100_000, 95_000, 0.5, 7 / 365) -
        400 * gamma(100_000, 90_000, 0.5, 7 / 365)) *
      1e8;
    near(l.all_expiry.net_gex, net, 1e-6, 'flow net');
  });
  test('inventory clipped to ±OI', () => {
    const a = computeLevelsFromChain(chainOf([inst(100_000, 'call', 10, { dealerInventory: -50 })]), 'flow');
    const b = computeLevelsFromChain(chainOf([inst(100_000, 'call', 10, { dealerInventory: -10 })]), 'flow');
    assert.equal(a.all_expiry.net_gex, b.all_expiry.net_gex);
    assert.ok(a.all_expiry.net_gex < 0);
    assert.equal(a.all_expiry.hvl_reason, 'negative_everywhere');
  });
  test('falls back to std for SOL/HYPE and when no inventory exists', () => {
    const withInv = [inst(100_000, 'call', 10, { dealerInventory: -10 })];
    assert.equal(computeLevelsFromChain(chainOf(withInv, { symbol: 'SOLUSDT' }), 'flow').positioning, 'std');
    assert.equal(computeLevelsFromChain(chainOf(withInv, { symbol: 'HYPEUSDT' }), 'flow').positioning, 'std');
    const noInv = computeLevelsFromChain(chainOf([inst(100_000, 'call', 10)]), 'flow');
    assert.equal(noInv.positioning, 'std');
    assert.ok(noInv.all_expiry.net_gex > 0);
    assert.equal(computeLevelsFromChain(chainOf(withInv, { symbol: 'ETHUSDT' }), 'flow').positioning, 'flow');
  });
});
