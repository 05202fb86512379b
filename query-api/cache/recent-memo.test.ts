import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RecentMemo } from './recent-memo.ts';

test('recent memo: computes once per key while young, drops entries past their age or beyond the count', () => {
  let now = 1_000;
  const memo = new RecentMemo<string>({ maxEntries: 3, maxAgeMs: 60_000, clock: () => now });
  let computed = 0;
  const get = (k: string): string => memo.get(k, () => `${k}#${++computed}`);
  assert.equal(get('a'), 'a#1');
  assert.equal(get('a'), 'a#1');
  now += 30_000;
  get('b');
  get('c');
  assert.equal(memo.size, 3);
  get('d'); // count bound: 'a' (oldest) goes
  assert.equal(memo.size, 3);
  assert.equal(memo.peek('a'), undefined);
  assert.equal(get('b'), 'b#2');
  now += 30_000; // b, c, d are 30 s old: kept
  get('e'); // count: b goes
  assert.deepEqual(['b', 'c', 'd', 'e'].map((k) => memo.peek(k) !== undefined), [false, true, true, true]);
  now += 30_001; // c, d are 60.001 s old
  get('f');
  assert.equal(memo.size, 2, 'only e and f are younger than 60 s');
  assert.equal(memo.peek('c'), undefined);
  assert.equal(memo.peek('e'), 'e#5');
  now += 60_000;
  assert.equal(memo.peek('e'), undefined, 'an old entry is not served even without an insert');
  assert.equal(computed, 6);
});

test('recent memo: delete with a value removes only that value (a failed load does not remove its replacement)', () => {
  const memo = new RecentMemo<string>({ maxEntries: 4, maxAgeMs: 1_000, clock: () => 0 });
  memo.set('k', 'first');
  memo.set('k', 'second');
  memo.delete('k', 'first');
  assert.equal(memo.peek('k'), 'second');
  memo.delete('k', 'second');
  assert.equal(memo.peek('k'), undefined);
});
