import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MIN_T_YEARS, d1, delta, gamma, greeks, pricingT, theta, vega, yearFraction } from './black76.ts';
import { contractGex } from './gex.ts';

function near(got: number, want: number, tol: number, what: string): void {
  assert.ok(Math.abs(got - want) <= tol, `${what}: got ${got}, want ${want} ± ${tol}`);
}

describe('§11.1 BTC-27SEP24-40000-C vs Deribit', () => {
  const F = 39165.86;
  const K = 40000;
  const iv = 0.6086;
  const T = 0.882499;
  test('gamma, delta, vega, theta', () => {
    near(gamma(F, K, iv, T), 1.7272e-5, 5e-10, 'gamma');
    near(delta('call', F, K, iv, T), 0.59832, 1e-5, 'delta');
    near(vega(F, K, iv, T), 142.302, 1e-3, 'vega');
    near(theta(F, K, iv, T), -13.443, 1e-3, 'theta');
    // Deribit's own (rounded) ticker: delta 0.59833, vega 142.30124, theta −13.4441.
    near(delta('call', F, K, iv, T), 0.59833, 1e-4, 'delta vs Deribit');
    near(vega(F, K, iv, T) / 142.30124, 1, 1e-3, 'vega vs Deribit (0.1%)');
  });
  test('greeks() agrees with the single functions; put delta = call delta − 1', () => {
    const g = greeks('put', F, K, iv, T);
    near(g.gamma, gamma(F, K, iv, T), 1e-20, 'gamma');
    near(g.delta, delta('call', F, K, iv, T) - 1, 1e-15, 'put delta');
    near(g.vega, vega(F, K, iv, T), 1e-12, 'vega');
    near(g.theta, theta(F, K, iv, T), 1e-12, 'theta');
  });
  test('GEX(OI 368.8, S = F) = $97,714 per 1%', () => {
    near(contractGex(gamma(F, K, iv, T), 368.8, F), 97_714, 0.5, 'gex');
  });
});

describe('time', () => {
  test('T = seconds / (365·86400)', () => {
    assert.equal(yearFraction(365 * 86_400_000, 0), 1);
    assert.equal(yearFraction(86_400_000, 0), 1 / 365);
  });
  test('expired (T <= 0) -> null; tiny T floored at 1 h', () => {
    assert.equal(pricingT(1000, 1000), null);
    assert.equal(pricingT(0, 1000), null);
    assert.equal(pricingT(60_000, 0), MIN_T_YEARS);
    assert.equal(MIN_T_YEARS, 1 / 8760);
    assert.equal(pricingT(7_200_000, 0), 7_200_000 / (365 * 86_400_000));
  });
  test('d1 at the money is σ√T/2', () => {
    near(d1(100, 100, 0.5, 0.25), 0.125, 1e-15, 'd1');
  });
});
