import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { backoffCeiling, backoffDelay } from './backoff.ts';

describe('backoff', () => {
  const opts = { baseMs: 100, maxMs: 5_000 };

  test('ceiling doubles per attempt and is capped', () => {
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5, 6, 7, 50].map((a) => backoffCeiling(a, opts)),
      [100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000],
    );
  });

  test('full jitter stays in [0, ceiling) and spreads', () => {
    let s = 42;
    const rand = (): number => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let attempt = 0; attempt < 10; attempt++) {
      const cap = backoffCeiling(attempt, opts);
      const xs = Array.from({ length: 400 }, () => backoffDelay(attempt, opts, rand));
      assert.ok(xs.every((x) => x >= 0 && x < cap), `attempt ${attempt} out of bounds`);
      const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
      assert.ok(mean > cap * 0.4 && mean < cap * 0.6, `mean ${mean} vs cap ${cap}`);
      assert.ok(new Set(xs).size > 50, 'jittered');
    }
    assert.equal(backoffDelay(3, opts, () => 0.999999), 799);
    assert.equal(backoffDelay(3, opts, () => 0), 0);
  });
});
