import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { Backoff, mayRetry, retryCeiling, retryDelay, waitDelay } from './retry-policy.ts';

/** Returns the given values in turn (deterministic "random" source). */
function sequence(...values: number[]): () => number {
  let i = 0;
  return () => values[i++ % values.length] ?? 0;
}

describe('retry policy', () => {
  const policy = { baseMs: 100, maxMs: 1_000 };

  test('ceiling doubles per attempt and is capped', () => {
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5, 50, -3].map((a) => retryCeiling(a, policy)),
      [100, 200, 400, 800, 1000, 1000, 1000, 100],
    );
  });

  test('full jitter: floor(random x ceiling), hand-computed', () => {
    const random = sequence(0.5, 0.25, 0.999, 0.1, 0.75, 0);
    // ceilings 100, 200, 400, 800, 1000, 1000
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5].map((a) => retryDelay(a, policy, random)),
      [50, 50, 399, 80, 750, 0],
    );
  });

  test('full jitter stays in [0, ceiling) and spreads', () => {
    let s = 42;
    const rand = (): number => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let attempt = 0; attempt < 8; attempt++) {
      const cap = retryCeiling(attempt, policy);
      const xs = Array.from({ length: 400 }, () => retryDelay(attempt, policy, rand));
      assert.ok(
        xs.every((x) => x >= 0 && x < cap),
        `attempt ${attempt} out of bounds`,
      );
      const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
      assert.ok(mean > cap * 0.4 && mean < cap * 0.6, `mean ${mean} vs cap ${cap}`);
    }
  });

  test('attempt limit: maxAttempts counts the first try', () => {
    assert.deepEqual(
      [1, 2, 3].map((n) => mayRetry(n, { ...policy, maxAttempts: 3 })),
      [true, true, false],
    );
    assert.equal(mayRetry(1_000_000, policy), true, 'unlimited by default');
  });

  test('Backoff counts consecutive failures and resets', () => {
    const b = new Backoff({ baseMs: 10, maxMs: 40 }, () => 0.5);
    assert.deepEqual([b.next(), b.next(), b.next(), b.next()], [5, 10, 20, 20]);
    assert.equal(b.attempt, 4);
    b.reset();
    assert.equal(b.next(), 5);
  });

  test('waitDelay: full wait resolves true; an abort ends it at once with false', async () => {
    assert.equal(await waitDelay(5), true);
    const ctl = new AbortController();
    const t0 = performance.now();
    const waiting = waitDelay(10_000, ctl.signal);
    setTimeout(() => ctl.abort(), 20);
    assert.equal(await waiting, false);
    assert.ok(performance.now() - t0 < 1_000, 'aborted well before the delay');
    assert.equal(await waitDelay(10_000, ctl.signal), false, 'already aborted: no wait');
  });
});
