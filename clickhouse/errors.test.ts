import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { StoreQueryError, StoreUnavailableError, toStoreError } from './errors.ts';

function sysError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('toStoreError', () => {
  test('network failures and client timeouts are unavailable', () => {
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT', 'EHOSTUNREACH']) {
      const e = toStoreError(sysError(code, `connect ${code}`), 'query');
      assert.ok(e instanceof StoreUnavailableError, code);
      assert.equal(e.op, 'query');
    }
    assert.ok(toStoreError(new Error('Timeout error.'), 'insert') instanceof StoreUnavailableError);
    assert.ok(toStoreError(new Error(''), 'query') instanceof StoreUnavailableError);
    assert.ok(toStoreError(new Error('<h1>503 Service Unavailable</h1>'), 'query') instanceof StoreUnavailableError);
  });

  test('ClickHouse errors keep code and type; overload codes are unavailable', () => {
    const q = toStoreError(Object.assign(new Error('Unknown table'), { code: '60', type: 'UNKNOWN_TABLE' }), 'query');
    assert.ok(q instanceof StoreQueryError);
    assert.deepEqual([q.code, q.type, q.message], ['60', 'UNKNOWN_TABLE', 'Unknown table']);
    const busy = toStoreError(Object.assign(new Error('Too many'), { code: '202', type: 'TOO_MANY_SIMULTANEOUS_QUERIES' }), 'query');
    assert.ok(busy instanceof StoreUnavailableError);
  });

  test('anything else is a query error, and store errors pass through', () => {
    const e = toStoreError(new TypeError('Cannot encode value'), 'command');
    assert.ok(e instanceof StoreQueryError && !(e instanceof StoreUnavailableError));
    assert.equal(e.code, null);
    assert.equal(toStoreError(e, 'query'), e);
  });
});
