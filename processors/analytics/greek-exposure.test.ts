import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { charm, d2, delta, gamma, price, theta, vanna, vega } from './black76.ts';
import { prepareChain } from './gex.ts';
import { GREEKS, GREEK_UNITS, dollarExposure, isGreek, unitGreek } from './greek-exposure.ts';
import { greekExposures } from './greeks-data.ts';
import type { GreekQuery } from './greeks-data.ts';
import { DAY_MS, chain115, chainOf, inst } from './testing/test-chains.ts';
import type { ChainSnapshot } from './types.ts';

function near(got: number, want: number, tol: number, what: string): void {
  assert.ok(Math.abs(got - want) <= tol, `${what}: got ${got}, want ${want} ± ${tol}`);
}

function rel(got: number, want: number, tol: number, what: string): void {
  assert.ok(Math.abs(got - want) <= tol * Math.abs(want), `${what}: got ${got}, want ${want} (rel ${tol})`);
}

// Hand-computed (independent stdlib-Python evaluation of the closed forms):
// F = 100,000, K = 105,000, σ = 0.5, T = 7/365: d1 = −0.670006, d2 = −0.739249.
const F = 100_000;
const K = 105_000;
const SIG = 0.5;
const T = 7 / 365;

describe('Black-76 vanna and charm: hand-computed vector', () => {
  test('closed forms', () => {
    near(d2(F, K, SIG, T), -0.7392488982433377, 1e-12, 'd2');
    near(delta('call', F, K, SIG, T), 0.25142684824262373, 1e-12, 'delta');
    near(gamma(F, K, SIG, T), 4.603182660681188e-5, 1e-16, 'gamma');
    near(vega(F, K, SIG, T), 44.14010770516207, 1e-9, 'vega');
    near(theta(F, K, SIG, T), -157.64324180415028, 1e-9, 'theta');
    near(vanna(F, K, SIG, T), 0.004712501292856175, 1e-14, 'vanna per vol point');
    near(charm(F, K, SIG, T), -0.016830361760200623, 1e-14, 'charm per day');
  });
  test('signs: vanna > 0 above the forward, < 0 below; charm pulls OTM delta to 0, ITM to ±1', () => {
    assert.ok(vanna(F, 110_000, SIG, T) > 0);
    assert.ok(vanna(F, 90_000, SIG, T) < 0);
    // OTM call (K > F): delta falls as time passes -> charm < 0; ITM call (K < F): delta rises -> charm > 0.
    assert.ok(charm(F, 110_000, SIG, T) < 0);
    assert.ok(charm(F, 90_000, SIG, T) > 0);
  });
});

describe('Black-76 closed forms vs central finite differences', () => {
  const cases: [number, number, number][] = [
    [100_000, 105_000, 0.5],
    [100_000, 90_000, 0.8],
    [3_000, 3_000, 0.65],
    [150, 200, 1.2],
  ];
  const ts = [2 / 365, 30 / 365, 0.75];
  for (const [f, k, s] of cases)
    for (const t of ts)
      test(`F=${f} K=${k} σ=${s} T=${t.toFixed(4)}`, () => {
        const hf = f * 1e-6;
        const hs = 1e-5;
        const ht = t * 1e-5;
        for (const type of ['call', 'put'] as const) {
          const fdDelta = (price(type, f + hf, k, s, t) - price(type, f - hf, k, s, t)) / (2 * hf);
          rel(delta(type, f, k, s, t), fdDelta, 1e-6, `${type} delta`);
          const fdGamma = (delta(type, f + hf, k, s, t) - delta(type, f - hf, k, s, t)) / (2 * hf);
          rel(gamma(f, k, s, t), fdGamma, 1e-6, `${type} gamma`);
          const fdVega = (price(type, f, k, s + hs, t) - price(type, f, k, s - hs, t)) / (2 * hs) / 100;
          rel(vega(f, k, s, t), fdVega, 1e-6, `${type} vega`);
          const fdTheta = -(price(type, f, k, s, t + ht) - price(type, f, k, s, t - ht)) / (2 * ht) / 365;
          rel(theta(f, k, s, t), fdTheta, 1e-6, `${type} theta`);
          const fdVanna = (delta(type, f, k, s + hs, t) - delta(type, f, k, s - hs, t)) / (2 * hs) / 100;
          rel(vanna(f, k, s, t), fdVanna, 1e-5, `${type} vanna`);
          const fdCharm = -(delta(type, f, k, s, t + ht) - delta(type, f, k, s, t - ht)) / (2 * ht) / 365;
          rel(charm(f, k, s, t), fdCharm, 1e-5, `${type} charm`);
        }
      });
  test('put-call parity: C − P = F − K', () => {
    near(price('call', F, K, SIG, T) - price('put', F, K, SIG, T), F - K, 1e-8, 'parity');
  });
});

describe('dollar exposures of 10 coins held by the dealer at S = 100,000 (hand-computed)', () => {
  const want: Record<string, number> = {
    delta: 251_426.8482426237,
    gamma: 46_031.82660681188,
    vega: 441.4010770516208,
    theta: -1_576.432418041503,
    vanna: 4_712.5012928561755,
    charm: -16_830.361760200623,
  };
  for (const g of GREEKS)
    test(`${g} (${GREEK_UNITS[g]})`, () => {
      const unit = unitGreek(g, 'call', F, K, SIG, T);
      rel(dollarExposure(g, unit, 10, 100_000), want[g] as number, 1e-12, g);
      // A short position (dealer −10) flips the sign.
      rel(dollarExposure(g, unit, -10, 100_000), -(want[g] as number), 1e-12, `${g} short`);
    });
  test('isGreek', () => {
    assert.ok(isGreek('vanna'));
    assert.ok(!isGreek('rho'));
  });
});

function query(chain: ChainSnapshot, extra: Partial<GreekQuery> = {}): GreekQuery {
  return {
    symbol: chain.symbol,
    now: chain.now,
    spot: chain.spot,
    open: prepareChain(chain).open,
    greek: 'gamma',
    model: 'std',
    breakdown: false,
    ...extra,
  };
}

describe('greekExposures by strike and by expiry', () => {
  test('§11.5 chain: gamma total = net GEX +$2,230,237 per 1%', () => {
    const d = greekExposures(query(chain115()));
    near(d.total, 2_230_237, 1, 'total');
    assert.equal(d.unit, 'usd_delta_per_1pct_move');
    assert.equal(d.positioning, 'std');
    assert.equal(d.by_strike.length, 7);
    assert.equal(d.by_expiry.length, 1);
    assert.equal(d.by_expiry[0]?.expiry, new Date(7 * DAY_MS).toISOString());
    assert.equal(d.by_expiry[0]?.dte, 7);
    near(d.call_total + d.put_total, d.total, 1e-6, 'call + put');
    // std: calls ≥ 0, puts ≤ 0 for gamma.
    for (const r of d.by_strike) assert.ok(r.call >= 0 && r.put <= 0 && r.net === r.call + r.put);
  });

  const two = chainOf([
    inst(105_000, 'call', 10),
    inst(105_000, 'put', 4, { venue: 'okx' }),
    inst(95_000, 'put', 6, { expiry: 14 * DAY_MS, markIv: 0.6 }),
    inst(95_000, 'call', 3, { markIv: null }),
  ]);
  const c = (g: 'vanna' | 'delta', type: 'call' | 'put', k: number, s: number, t: number, q: number): number =>
    dollarExposure(g, unitGreek(g, type, 100_000, k, s, t), q, 100_000);

  test('vanna by strike / expiry / venue, std signs, missing IV skipped', () => {
    const d = greekExposures(query(two, { greek: 'vanna', breakdown: true }));
    const call105 = c('vanna', 'call', 105_000, 0.5, 7 / 365, 10);
    const put105 = c('vanna', 'put', 105_000, 0.5, 7 / 365, -4);
    const put95 = c('vanna', 'put', 95_000, 0.6, 14 / 365, -6);
    // Hand check of the first: 10 coins × 0.0047125 × 100,000 = +4,712.50 (K above F: vanna > 0).
    near(call105, 4_712.5012928561755, 1e-9, 'call105');
    assert.ok(put105 < 0, 'dealer short puts above F: negative vanna');
    assert.ok(put95 > 0, 'dealer short puts below F: positive vanna');
    assert.deepEqual(
      d.by_strike.map((r) => r.strike),
      [95_000, 105_000],
    );
    near(d.by_strike[1]?.call ?? NaN, call105, 1e-9, '105 call');
    near(d.by_strike[1]?.put ?? NaN, put105, 1e-9, '105 put');
    near(d.by_strike[0]?.put ?? NaN, put95, 1e-9, '95 put');
    assert.equal(d.by_strike[0]?.call, 0, '95 call has no IV');
    assert.deepEqual(
      d.by_expiry.map((e) => e.dte),
      [7, 14],
    );
    near(d.by_expiry[0]?.net ?? NaN, call105 + put105, 1e-9, '7d net');
    near(d.total, call105 + put105 + put95, 1e-9, 'total');
    assert.deepEqual(d.diagnostics, { instruments_used: 3, skipped_no_iv: 1 });
    assert.deepEqual(
      d.exchange_breakdown?.map((v) => v.venue),
      ['deribit', 'okx'],
    );
    near(d.exchange_breakdown?.[1]?.by_strike[1] ?? NaN, put105, 1e-9, 'okx 105');
    assert.equal(d.exchange_breakdown?.[1]?.by_strike[0], 0);
    near(d.exchange_breakdown?.[0]?.total ?? NaN, call105 + put95, 1e-9, 'deribit total');
  });

  test('expiry filter keeps one expiry', () => {
    const d = greekExposures(query(two, { greek: 'delta', expiry: 14 * DAY_MS }));
    assert.deepEqual(
      d.by_strike.map((r) => r.strike),
      [95_000],
    );
    near(d.total, c('delta', 'put', 95_000, 0.6, 14 / 365, -6), 1e-9, 'total');
    assert.ok(d.total > 0, 'dealer short puts holds long delta');
    assert.equal(d.exchange_breakdown, undefined);
  });

  test('flow model: inventories used; fallback to std without inventory or off BTC/ETH', () => {
    const withInv = chainOf([inst(105_000, 'call', 10, { dealerInventory: -3 }), inst(95_000, 'put', 10)]);
    const flow = greekExposures(query(withInv, { model: 'flow' }));
    assert.equal(flow.positioning, 'flow');
    near(flow.total, dollarExposure('gamma', gamma(100_000, 105_000, 0.5, 7 / 365), -3, 100_000), 1e-9, 'flow');
    assert.equal(flow.by_strike[0]?.net, 0, 'no inventory -> 0 under flow');
    const sol = greekExposures(query({ ...withInv, symbol: 'SOLUSDT' }, { model: 'flow' }));
    assert.equal(sol.positioning, 'std');
    const none = greekExposures(query(two, { model: 'flow' }));
    assert.equal(none.positioning, 'std');
  });

  test('input order does not change a byte', () => {
    const a = JSON.stringify(greekExposures(query(two, { greek: 'charm', breakdown: true })));
    const rev = { ...two, instruments: [...two.instruments].reverse() };
    assert.equal(JSON.stringify(greekExposures(query(rev, { greek: 'charm', breakdown: true }))), a);
  });
});
