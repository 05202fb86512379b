import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { GRID_POINTS, GRID_X, accumulate, exactProfileValue, findRoots, finishProfile, newAccumulator, profileTerm } from './profile.ts';
import { gamma } from './black76.ts';

describe('grid', () => {
  test('201 points, −25%…+25% step 0.25%, x = 0 exactly in the middle', () => {
    assert.equal(GRID_X.length, GRID_POINTS);
    assert.equal(GRID_X[0], -0.25);
    assert.equal(GRID_X[200], 0.25);
    assert.equal(GRID_X[100], 0);
    assert.ok(Math.abs((GRID_X[101] ?? 0) - 0.0025) < 1e-18);
  });
});

describe('profile values', () => {
  test('G(x) = Σ q·Γ(F(1+x))·(S(1+x))²·0.01 at grid points', () => {
    const acc = newAccumulator();
    const terms = [profileTerm(100_000, 95_000, 0.5, 7 / 365, 10, -3), profileTerm(100_000, 110_000, 0.6, 30 / 365, -20, 5)];
    for (const t of terms) accumulate(acc, t);
    const p = finishProfile(acc, 100_000);
    for (const j of [0, 37, 100, 150, 200]) {
      const x = GRID_X[j] ?? 0;
      const u = 1 + x;
      const want =
        (10 * gamma(100_000 * u, 95_000, 0.5, 7 / 365) - 20 * gamma(100_000 * u, 110_000, 0.6, 30 / 365)) * (100_000 * u) ** 2 * 0.01;
      const got = p.profile_std[j] ?? 0;
      assert.ok(Math.abs(got - want) <= 1e-9 * Math.abs(want), `G(${x}) = ${got}, want ${want}`);
      const flow = exactProfileValue(terms, 100_000, x, 'flow');
      assert.ok(Math.abs((p.profile_flow[j] ?? 0) - flow) <= 1e-9 * Math.abs(flow));
    }
  });
  test('slope matches a central finite difference of the exact profile', () => {
    const terms = [profileTerm(100_000, 95_000, 0.5, 7 / 365, 10, 0), profileTerm(100_000, 104_000, 0.4, 3 / 365, -7, 0)];
    const acc = newAccumulator();
    for (const t of terms) accumulate(acc, t);
    const p = finishProfile(acc, 100_000);
    for (const j of [60, 100, 130]) {
      const x = GRID_X[j] ?? 0;
      const h = 1e-6;
      const fd = (exactProfileValue(terms, 100_000, x + h, 'std') - exactProfileValue(terms, 100_000, x - h, 'std')) / (2 * h);
      const got = p.profile_std_slope[j] ?? 0;
      assert.ok(Math.abs(got - fd) <= 1e-5 * Math.max(1, Math.abs(fd)), `slope at ${x}: ${got} vs ${fd}`);
    }
  });
});

describe('roots', () => {
  test('Hermite-refined root equals true bisection of the exact profile to < 1e-7 in x (two flips)', () => {
    const terms = [
      profileTerm(100_000, 90_000, 0.45, 10 / 365, -800, 0),
      profileTerm(100_000, 100_000, 0.45, 10 / 365, 600, 0),
      profileTerm(100_000, 112_000, 0.45, 10 / 365, -900, 0),
    ];
    const acc = newAccumulator();
    for (const t of terms) accumulate(acc, t);
    const p = finishProfile(acc, 100_000);
    const r = findRoots(p.profile_std, p.profile_std_slope);
    assert.equal(r.status, 'ok');
    assert.ok(r.roots.length >= 2);
    for (const root of r.roots) {
      let lo = root.lowerX;
      let hi = root.upperX;
      const glo = exactProfileValue(terms, 100_000, lo, 'std');
      while (hi - lo > 1e-12) {
        const mid = 0.5 * (lo + hi);
        if (exactProfileValue(terms, 100_000, mid, 'std') < 0 === glo < 0) lo = mid;
        else hi = mid;
      }
      assert.ok(Math.abs(root.x - lo) < 1e-7, `root ${root.x} vs exact ${lo}`);
      assert.ok(root.x > root.lowerX && root.x < root.upperX);
    }
    assert.equal(r.roots[0]?.direction, 'neg_to_pos');
    assert.equal(r.roots[1]?.direction, 'pos_to_neg');
    const nearest = [...r.roots].sort((a, b) => Math.abs(a.x) - Math.abs(b.x))[0];
    assert.equal(r.zero, nearest);
  });
  test('exact zeros carry no sign: a run of zeros between + and − is one root in its middle', () => {
    const r = findRoots([0, 0, 1, 1, 0, 0, -1, -1], [0, 0, 0, 0, 0, 0, 0, 0]);
    assert.equal(r.roots.length, 1);
    assert.equal(r.roots[0]?.x, 0.5 * ((GRID_X[4] ?? 0) + (GRID_X[5] ?? 0)));
    assert.equal(r.roots[0]?.lowerX, GRID_X[3]);
    assert.equal(r.roots[0]?.upperX, GRID_X[6]);
    assert.equal(r.roots[0]?.direction, 'pos_to_neg');
  });
  test('touching zero is not a flip; statuses', () => {
    assert.equal(findRoots([1, 0, 1], [0, 0, 0]).status, 'positive_everywhere');
    assert.equal(findRoots([-1, -2], [0, 0]).status, 'negative_everywhere');
    assert.equal(findRoots([0, 0], [0, 0]).status, 'no_gamma');
    assert.equal(findRoots([0, 0], [0, 0]).zero, null);
  });
  test('nearest-to-zero tie picks the lower root', () => {
    // Linear profile pieces with symmetric roots around x = 0 (grid indices 99.5 and 100.5).
    const v = new Array<number>(GRID_POINTS).fill(1);
    v[100] = -1;
    const s = new Array<number>(GRID_POINTS).fill(0);
    const r = findRoots(v, s);
    assert.equal(r.roots.length, 2);
    assert.equal(r.zero, r.roots[0]);
  });
});
