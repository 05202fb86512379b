import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alignedAtOrBefore, nextAlignedTick, runAligned, ticksBetween } from './clock.ts';
import { FakeClock } from './testing/fake-clock.ts';

const T0 = Date.UTC(2026, 10, 21, 12, 0, 7, 300); // 12:00:07.300

test('aligned ticks are the multiples of the interval since the epoch', () => {
  assert.equal(nextAlignedTick(T0, 30_000), Date.UTC(2026, 10, 21, 12, 0, 30));
  assert.equal(nextAlignedTick(Date.UTC(2026, 10, 21, 12, 0, 30), 30_000), Date.UTC(2026, 10, 21, 12, 1, 0)); // strictly after
  assert.equal(alignedAtOrBefore(Date.UTC(2026, 10, 21, 12, 0, 30), 30_000), Date.UTC(2026, 10, 21, 12, 0, 30));
  assert.equal(alignedAtOrBefore(T0, 30_000), Date.UTC(2026, 10, 21, 12, 0, 0));
  assert.deepEqual(ticksBetween(1_000, 4_000, 1_000), [2_000, 3_000]);
});

test('runAligned fires on the aligned instants, never early, runs overrun ticks late instead of dropping them', async () => {
  const clock = new FakeClock(T0);
  const abort = new AbortController();
  const fired: { tick: number; at: number }[] = [];
  let slow = false;
  const done = runAligned({
    clock,
    intervalMs: 30_000,
    signal: abort.signal,
    catchUpWindowMs: 120_000,
    onTick: async (tick) => {
      fired.push({ tick, at: clock.now() });
      if (slow) {
        slow = false;
        await clock.advance(70_000); // this cycle takes 70 s: the next two ticks are already due
      }
    },
  });
  await clock.advance(22_699); // 12:00:29.999
  assert.equal(fired.length, 0);
  await clock.advance(1); // 12:00:30.000
  assert.deepEqual(fired, [{ tick: T0 + 22_700, at: T0 + 22_700 }]);
  slow = true;
  await clock.advance(30_000); // 12:01:00 fires and overruns to 12:02:10
  await clock.advance(0);
  const t = (m: number, s: number): number => Date.UTC(2026, 10, 21, 12, m, s);
  assert.deepEqual(
    fired.map((f) => [f.tick, f.at]),
    [
      [t(0, 30), t(0, 30)],
      [t(1, 0), t(1, 0)],
      [t(1, 30), t(2, 10)],
      [t(2, 0), t(2, 10)],
    ],
  );
  await clock.advance(20_000); // 12:02:30
  assert.deepEqual(fired.at(-1), { tick: t(2, 30), at: t(2, 30) });
  abort.abort();
  await done;
});

test('ticks that fell out of the catch-up window are skipped and reported', async () => {
  const clock = new FakeClock(Date.UTC(2026, 0, 1, 0, 0, 0));
  const abort = new AbortController();
  const fired: number[] = [];
  const skipped: number[] = [];
  const done = runAligned({
    clock,
    intervalMs: 1_000,
    signal: abort.signal,
    firstTick: Date.UTC(2026, 0, 1, 0, 0, 0) - 10_000, // ten ticks in the past
    catchUpWindowMs: 3_000,
    onSkip: (t) => skipped.push(...t),
    onTick: async (tick) => {
      fired.push(tick);
    },
  });
  await clock.advance(0);
  const base = Date.UTC(2026, 0, 1, 0, 0, 0);
  assert.deepEqual(
    skipped,
    [-10, -9, -8, -7, -6, -5, -4].map((s) => base + s * 1000),
  );
  assert.deepEqual(
    fired,
    [-3, -2, -1, 0].map((s) => base + s * 1000),
  );
  abort.abort();
  await done;
});
