import { test } from 'node:test';
import assert from 'node:assert/strict';
import { maxPain, painAt } from './max-pain.ts';

test('§11.5: max pain 100000, payout 3.45M (calls) + 2.35M (puts) = $5.8M', () => {
  const k = [85_000, 90_000, 95_000, 100_000, 105_000, 110_000, 115_000];
  const c = [50, 120, 300, 800, 1400, 1100, 600];
  const p = [900, 1500, 1200, 700, 250, 80, 20];
  assert.deepEqual(maxPain(k, c, p), { strike: 100_000, value: 5_800_000 });
  assert.equal(painAt(100_000, k, c, p), 50 * 15_000 + 120 * 10_000 + 300 * 5_000 + 250 * 5_000 + 80 * 10_000 + 20 * 15_000);
});

test('hand-computed: calls 1@90, puts 2@110 -> pain 90: 40, 100: 10+20 = 30, 110: 20 -> 110', () => {
  assert.deepEqual(maxPain([90, 100, 110], [1, 0, 0], [0, 0, 2]), { strike: 110, value: 20 });
});

test('ties -> lowest strike (all three candidates pay 20)', () => {
  assert.deepEqual(maxPain([90, 100, 110], [1, 0, 0], [0, 0, 1]), { strike: 90, value: 20 });
});

test('null when no strikes or zero OI', () => {
  assert.equal(maxPain([], [], []), null);
  assert.equal(maxPain([100], [0], [0]), null);
});
