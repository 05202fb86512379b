import { test } from 'node:test';
import assert from 'node:assert/strict';
import { atmIv, atmVolAtHorizon, expectedMoveBand } from './expected-move.ts';

function near(got: number | null, want: number, tol: number, what: string): void {
  assert.ok(got !== null && Math.abs(got - want) <= tol, `${what}: got ${got}, want ${want}`);
}

test('§11.5 band to expiry (T = 7/365, σ = 50%): 93,310–107,170 / 87,068–114,853', () => {
  const b = expectedMoveBand(100_000, 0.5, 7 / 365);
  near(b.lower_1sd, 93_310, 0.5, 'lower 1sd');
  near(b.upper_1sd, 107_170, 0.5, 'upper 1sd');
  near(b.lower_2sd, 87_068, 0.5, 'lower 2sd');
  near(b.upper_2sd, 114_853, 0.5, 'upper 2sd');
});

test('ATM IV at K = F linear in strike; duplicates averaged; flat outside', () => {
  const pts = [
    { strike: 110, iv: 0.4 },
    { strike: 90, iv: 0.6 },
    { strike: 90, iv: 0.62 },
  ];
  near(atmIv(pts, 95), 0.61 + (0.4 - 0.61) * 0.25, 1e-15, 'interp');
  near(atmIv(pts, 80), 0.61, 0, 'flat left');
  near(atmIv(pts, 120), 0.4, 0, 'flat right');
  assert.equal(atmIv([], 100), null);
  assert.equal(atmIv([{ strike: 100, iv: 0 }], 100), null);
});

test('total-variance interpolation between bracketing expiries', () => {
  const term = [
    { t: 2 / 365, iv: 0.6 },
    { t: 0.5 / 365, iv: 0.8 },
  ];
  // w = (0.64·0.5 + (0.36·2 − 0.64·0.5)·(0.5/1.5))/365 = 0.453333…/365 at τ = 1/365
  near(atmVolAtHorizon(term, 1 / 365), Math.sqrt(0.32 + 0.4 / 3), 1e-12, 'σ(1d)');
});

test('horizon before the front expiry -> flat front σ; after the last -> flat last σ; empty -> null', () => {
  const term = [
    { t: 3 / 365, iv: 0.7 },
    { t: 10 / 365, iv: 0.5 },
  ];
  assert.equal(atmVolAtHorizon(term, 1 / 365), 0.7);
  assert.equal(atmVolAtHorizon(term, 30 / 365), 0.5);
  assert.equal(atmVolAtHorizon([], 1 / 365), null);
});
