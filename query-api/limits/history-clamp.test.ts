import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { clampInstant, clampWindow, earliestAllowed, historyMeta } from './history-clamp.ts';

const DAY = 86_400_000;
const now = Date.UTC(2026, 9, 15, 12, 0, 0);

describe('history clamp', () => {
  test('inside the plan window: served as requested, no clamp', () => {
    const r = clampWindow({ from: now - 10 * DAY, to: now }, { historyDays: 30, enforced: true, now });
    assert.deepEqual(r, { served: { from: now - 10 * DAY, to: now }, enforced: true, clamp: null });
    assert.deepEqual(historyMeta(r), { history_depth_enforced: true });
  });

  test('evaluation key beyond the window: clamped to the window start', () => {
    const r = clampWindow({ from: now - 100 * DAY, to: now - DAY }, { historyDays: 30, enforced: true, now });
    assert.deepEqual(r.served, { from: now - 30 * DAY, to: now - DAY });
    assert.deepEqual(r.clamp, {
      requested_from: '2026-07-07T12:00:00.000Z',
      requested_to: '2026-10-14T12:00:00.000Z',
      served_from: '2026-09-15T12:00:00.000Z',
      served_to: '2026-10-14T12:00:00.000Z',
      enforced: true,
      history_days: 30,
    });
    assert.deepEqual(historyMeta(r), { history_depth_enforced: true, extra: { history_clamp: r.clamp } });
  });

  test('paid plan beyond the window: reported, not enforced', () => {
    const r = clampWindow({ from: now - 400 * DAY, to: now }, { historyDays: 365, enforced: false, now });
    assert.deepEqual(r.served, { from: now - 400 * DAY, to: now });
    assert.equal(r.clamp?.enforced, false);
    assert.equal(r.clamp?.served_from, r.clamp?.requested_from);
    assert.equal(historyMeta(r).history_depth_enforced, false);
  });

  test('window entirely before the allowed start: empty window at the start', () => {
    const r = clampWindow({ from: now - 90 * DAY, to: now - 60 * DAY }, { historyDays: 30, enforced: true, now });
    assert.deepEqual(r.served, { from: now - 30 * DAY, to: now - 30 * DAY });
  });

  test('unlimited history never clamps', () => {
    assert.equal(earliestAllowed({ historyDays: null, enforced: true, now }), null);
    assert.equal(clampWindow({ from: 0, to: now }, { historyDays: null, enforced: true, now }).clamp, null);
  });

  test('as_of instant', () => {
    const r = clampInstant(now - 45 * DAY, { historyDays: 30, enforced: true, now });
    assert.equal(r.served, now - 30 * DAY);
    assert.equal(r.clamp?.requested_from, '2026-08-31T12:00:00.000Z');
    assert.equal(clampInstant(now - 5 * DAY, { historyDays: 30, enforced: true, now }).clamp, null);
  });
});
