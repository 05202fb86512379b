/**
 * TurnShare: one loop works per event-loop turn, within its share (time or bytes), and waiting loops get turns first
 * come, first served; a timer due meanwhile runs between two shares.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { TurnShare } from './turn-share.ts';

const busy = (ms: number): void => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};

test('turn share: one loop a turn, within its bytes; the others wait their turn in order', async () => {
  const share = new TurnShare(1_000, 100);
  const log: string[] = [];
  let turn = 0;
  let counting = true;
  const ticker = (async () => {
    while (counting) {
      await nextTurn();
      turn++;
    }
  })();
  const loop = async (name: string, units: number): Promise<void> => {
    const owner = {};
    for (let i = 0; i < units; i++) {
      log.push(`${name}${i}@${turn}`);
      await share.pass(owner, 40);
    }
  };
  await Promise.all([loop('a', 6), loop('b', 3), loop('c', 3)]);
  counting = false;
  await ticker;
  // a holds the first turn: 40 + 40 + 40 bytes crosses 100 after its third unit; then b and c (queued at their first
  // unit) take a turn each, in order, and a resumes after them.
  const units = log.map((l) => l.split('@')[0]);
  assert.deepEqual(units.slice(0, 5), ['a0', 'b0', 'c0', 'a1', 'a2']);
  const turnOf = new Map(log.map((l) => [l.split('@')[0], Number(l.split('@')[1])]));
  assert.equal(turnOf.get('a1'), turnOf.get('a0'), 'a keeps the turn within its share');
  assert.ok((turnOf.get('b1') ?? 0) > (turnOf.get('b0') ?? 0), 'b waited for a later turn');
  assert.equal(log.length, 12);
});

test('turn share: the time share ends a turn; a timer due meanwhile runs before the next share', async () => {
  const share = new TurnShare(5, Number.POSITIVE_INFINITY);
  const events: string[] = [];
  const timer = new Promise<void>((resolve) =>
    setTimeout(() => {
      events.push('timer');
      resolve();
    }, 1),
  );
  const loop = async (name: string): Promise<void> => {
    const owner = {};
    for (let i = 0; i < 4; i++) {
      busy(3);
      events.push(name);
      await share.pass(owner);
    }
  };
  await Promise.all([loop('x'), loop('y'), timer]);
  // x works 3 ms (share left), 6 ms (share used up: x waits); the timer, due since 1 ms, runs before y's turn.
  assert.deepEqual(events.slice(0, 3), ['x', 'y', 'x']);
  const timerAt = events.indexOf('timer');
  assert.ok(timerAt > 0 && timerAt <= 3, `timer at ${timerAt}: ${events.join(' ')}`);
  assert.equal(events.filter((e) => e !== 'timer').length, 8);
});
