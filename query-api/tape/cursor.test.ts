import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeCursor, encodeCursor } from './cursor.ts';

test('tape cursor: round trip, opaque base64url, every malformed text rejected', () => {
  const c = { ts: 1_767_225_600_123, venue: 'deribit', id: 'deribit:BTC-1:42', order: 'desc' as const };
  const text = encodeCursor(c);
  assert.match(text, /^[A-Za-z0-9_-]+$/);
  assert.deepEqual(decodeCursor(text), c);
  // JSON [1767225600123,"deribit","deribit:BTC-1:42","desc"] in base64url
  assert.equal(Buffer.from(text, 'base64url').toString('utf8'), '[1767225600123,"deribit","deribit:BTC-1:42","desc"]');
  for (const bad of [
    '',
    'a b',
    '%%%',
    'bm90IGpzb24',
    Buffer.from('[1,"v","i","up"]').toString('base64url'),
    Buffer.from('[1.5,"v","i","asc"]').toString('base64url'),
    Buffer.from('{"ts":1}').toString('base64url'),
    Buffer.from('[-1,"v","i","asc"]').toString('base64url'),
  ]) {
    assert.equal(decodeCursor(bad), null, bad);
  }
});
