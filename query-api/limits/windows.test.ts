import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryCounter } from './memory-counter.ts';
import { minuteWindow, monthWindow, secondsUntil } from './windows.ts';

test('UTC minute and month windows', () => {
  const t = Date.UTC(2026, 11, 31, 23, 59, 45, 500);
  assert.deepEqual(minuteWindow(t), { start: Date.UTC(2026, 11, 31, 23, 59), end: Date.UTC(2027, 0, 1, 0, 0) });
  assert.deepEqual(monthWindow(t), { month: 202612, start: Date.UTC(2026, 11, 1), end: Date.UTC(2027, 0, 1) });
  assert.equal(secondsUntil(t, minuteWindow(t).end), 15);
  assert.equal(secondsUntil(t, t), 1);
});

test('memory counter: seed, quota before burst, minute roll-over, units', () => {
  const c = new MemoryCounter();
  const now = Date.UTC(2026, 9, 15, 12, 0, 10);
  const req = { userId: 'u', units: 1, burstLimit: 2, quota: 10, now };
  assert.deepEqual(c.hitSync(req), { kind: 'missing' });
  assert.deepEqual(c.hitSync({ ...req, seed: 7 }), { kind: 'allowed', minuteCount: 1, monthCount: 8 });
  assert.deepEqual(c.hitSync(req), { kind: 'allowed', minuteCount: 2, monthCount: 9 });
  assert.deepEqual(c.hitSync(req), { kind: 'burst', minuteCount: 2, monthCount: 9 });
  assert.deepEqual(c.hitSync({ ...req, now: now + 60_000, units: 2 }), { kind: 'quota', minuteCount: 0, monthCount: 9 });
  assert.deepEqual(c.hitSync({ ...req, now: now + 60_000 }), { kind: 'allowed', minuteCount: 1, monthCount: 10 });
  // A new month needs a new seed.
  assert.deepEqual(c.hitSync({ ...req, now: Date.UTC(2026, 10, 1) }), { kind: 'missing' });
});
