import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toJsonCompactEachRow } from './compact-rows.ts';

test('JSONCompactEachRow: union of keys in first-seen order, missing keys as null', () => {
  const { columns, body } = toJsonCompactEachRow([
    { a: 1, s: 'x"y' },
    { s: 'z', b: true },
  ]);
  assert.deepEqual(columns, ['a', 's', 'b']);
  assert.equal(body.toString('utf8'), '[1,"x\\"y",null]\n[null,"z",true]');
});
