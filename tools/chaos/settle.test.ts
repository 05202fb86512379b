import { test } from 'node:test';
import assert from 'node:assert/strict';
import { settled } from './settle.ts';

const opts = { stableMs: 30_000, deadlineMs: 240_000 };
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

test('a count unchanged for the stable window is final: those trades are lost', () => {
  const samples = [at(0, 20), at(10, 13), at(20, 13), at(30, 13), at(40, 13)];
  assert.deepEqual(settled(samples.slice(0, 4), opts), { final: false, lost: 13, late: 7, lateSeconds: 10 });
  assert.deepEqual(settled(samples, opts), { final: true, lost: 13, late: 7, lateSeconds: 10 });
});

test('a count still moving at the deadline is final there', () => {
  const samples = Array.from({ length: 121 }, (_, i) => at(i * 2, 1000 - i - (i % 2)));
  const r = settled(samples, opts);
  assert.equal(r.final, true);
  assert.equal(r.lost, 1000 - 120);
  assert.equal(r.late, 120);
});
