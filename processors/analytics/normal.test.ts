import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normCdf, normPdf } from './normal.ts';

// Reference: Python math.erfc, Φ(x) = erfc(−x/√2)/2.
const REF: readonly (readonly [number, number])[] = [
  [-40, 0.0],
  [-8, 6.220960574271819e-16],
  [-7.5, 3.19089167291092e-14],
  [-5, 2.866515718791946e-7],
  [-3, 0.0013498980316300957],
  [-1.5, 0.06680720126885809],
  [-0.5, 0.3085375387259869],
  [-0.001, 0.49960105778608893],
  [0, 0.5],
  [0.25, 0.5987063256829237],
  [1, 0.8413447460685429],
  [2.5, 0.9937903346742238],
  [6, 0.9999999990134123],
  [7.1, 0.9999999999993762],
  [9, 1.0],
  [38, 1.0],
];

test('normCdf matches erfc reference to 1e-14 absolute and 1e-10 relative in the lower tail', () => {
  for (const [x, p] of REF) {
    const got = normCdf(x);
    assert.ok(Math.abs(got - p) < 1e-14, `Φ(${x}) = ${got}, want ${p}`);
    if (p > 0 && x < 0) assert.ok(Math.abs(got / p - 1) < 1e-10, `relative error at ${x}: ${got / p - 1}`);
  }
});

test('normCdf symmetry Φ(x) + Φ(−x) = 1', () => {
  for (let x = -6; x <= 6; x += 0.37) assert.ok(Math.abs(normCdf(x) + normCdf(-x) - 1) < 1e-15);
});

test('normPdf at 0 and 1', () => {
  assert.ok(Math.abs(normPdf(0) - 0.3989422804014327) < 1e-16);
  assert.ok(Math.abs(normPdf(1) - 0.24197072451914337) < 1e-16);
});
