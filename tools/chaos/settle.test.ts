import { test } from 'node:test';
import assert from 'node:assert/strict';
import { settled } from './settle.ts';

const opts = { stableMs: 30_000, deadlineMs: 240_000, lateAfterMs: 10_000 };
const at = (s: number, lost: number) => ({ atMs: s * 1000, lost });

test('nothing missing at the first comparison: final, nothing late', () => {
  assert.deepEqual(settled([at(0, 0)], opts), { final: true, lost: 0, late: 0, lateSeconds: null });
});

test('a stalled writer that resumes: the trades stored after the first comparison are late, not lost', () => {
  // 686 missing while the consumer rejoined its group; stored 24 s and 40 s later.
  const samples = [at(0, 686), at(2, 686), at(4, 686), at(6, 686), at(24, 300), at(40, 0)];
  assert.deepEqual(settled(samples.slice(0, 4), opts), { final: false, lost: 686, late: 0, lateSeconds: null });
  assert.deepEqual(settled(samples, opts), { final: true, lost: 0, late: 686, lateSeconds: 40 });
});

test("the raw writers' last batches (stored within 10 s of the first comparison) are not late", () => {
  const samples = [at(0, 80), at(2, 80), at(4, 0)];
  assert.deepEqual(settled(samples, opts), { final: true, lost: 0, late: 0, lateSeconds: null });
});

test('a count unchanged for the stable window is final: those trades are lost', () => {
  const samples = [at(0, 30), at(4, 20), at(14, 13), at(24, 13), at(34, 13), at(44, 13)];
  assert.deepEqual(settled(samples.slice(0, 4), opts), { final: false, lost: 13, late: 7, lateSeconds: 14 });
  assert.deepEqual(settled(samples, opts), { final: true, lost: 13, late: 7, lateSeconds: 14 });
});

test('a count still moving at the deadline is final there', () => {
  const samples = Array.from({ length: 121 }, (_, i) => at(i * 2, 1000 - i - (i % 2)));
  const r = settled(samples, opts);
  assert.equal(r.final, true);
  assert.equal(r.lost, 1000 - 120);
  assert.equal(r.late, 994 - 880); // missing at 10 s (the last comparison within the last batches window) minus at the end
});
