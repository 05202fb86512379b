import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nextBurst, prefillTargets } from './prefill-plan.ts';

test('prefill targets: the tape tail bound for every symbol, the live flow bound for the flow symbols, plus the margin', () => {
  assert.deepEqual(prefillTargets(['BTCUSDT', 'ETHUSDT', 'SOLUSDT'], ['BTCUSDT', 'ETHUSDT'], 20_000, 1_000_000, 1_000), {
    BTCUSDT: 1_001_000,
    ETHUSDT: 1_001_000,
    SOLUSDT: 21_000,
  });
  // both bounds off: nothing to fill
  assert.deepEqual(prefillTargets(['SOLUSDT'], [], 0, 0, 1_000), { SOLUSDT: 0 });
});

test('next burst: shares of the room in proportion to what each symbol still needs, never past a target', () => {
  const targets = { BTCUSDT: 30_000, SOLUSDT: 10_000, HYPEUSDT: 500 };
  // needs 30,000 / 10,000 / 500 (total 40,500); room min(4,000, 20,000 - 0) = 4,000
  // BTC floor(4000*30000/40500) = 2,962; SOL floor(4000*10000/40500) = 987; HYPE floor(4000*500/40500) = 49
  assert.deepEqual(nextBurst(targets, { emitted: {}, outstanding: 0 }, { window: 20_000, burst: 4_000 }), {
    BTCUSDT: 2_962,
    SOLUSDT: 987,
    HYPEUSDT: 49,
  });
  // room limited by the window: 20,000 - 18,500 = 1,500; HYPE done, SOL needs 100, BTC 29,000 (total 29,100)
  // BTC floor(1500*29000/29100) = 1,494; SOL min(100, floor(1500*100/29100) = 5) = 5
  assert.deepEqual(
    nextBurst(
      targets,
      { emitted: { BTCUSDT: 1_000, SOLUSDT: 9_900, HYPEUSDT: 500 }, outstanding: 18_500 },
      { window: 20_000, burst: 4_000 },
    ),
    { BTCUSDT: 1_494, SOLUSDT: 5 },
  );
  // a symbol short by less than its share gets exactly what it lacks; one short by a sliver still gets 1
  assert.deepEqual(nextBurst({ A: 10, B: 1_000_000 }, { emitted: { A: 9 }, outstanding: 0 }, { window: 100, burst: 100 }), { A: 1, B: 99 });
});

test('next burst: nothing while the product is a window behind, nothing once every target is emitted', () => {
  assert.deepEqual(nextBurst({ A: 100 }, { emitted: {}, outstanding: 20_000 }, { window: 20_000, burst: 4_000 }), {});
  assert.deepEqual(nextBurst({ A: 100 }, { emitted: { A: 100 }, outstanding: 0 }, { window: 20_000, burst: 4_000 }), {});
});
