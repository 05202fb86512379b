import { test } from 'node:test';
import assert from 'node:assert/strict';
import { INTERVALS, INTERVAL_MINUTES } from './grid.ts';
import { divides, tierFor } from './tiers.ts';

test('every interval reads the coarsest table whose bucket divides it', () => {
  const chosen = Object.fromEntries(INTERVALS.map((i) => [i, tierFor(INTERVAL_MINUTES[i])]));
  assert.deepEqual(chosen, { '1m': '1m', '5m': '1m', '15m': '1m', '30m': '1m', '1h': '1h', '4h': '1h', '1d': '1d' });
  // Not a product interval, but the rule: 90 minutes is not whole hours, 2 days are whole days.
  assert.equal(tierFor(90), '1m');
  assert.equal(tierFor(2880), '1d');
  assert.equal(tierFor(1500), '1h');
  assert.equal(divides('1h', 240), true);
  assert.equal(divides('1h', 30), false);
  assert.equal(divides('1d', 240), false);
});
