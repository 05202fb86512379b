import { test } from 'node:test';
import assert from 'node:assert/strict';
import { notification, parseChannel, parseFrame } from './protocol.ts';

test('parseChannel: kinds, symbols, venue filters (sorted, deduplicated)', () => {
  assert.deepEqual(parseChannel('tape.BTCUSDT'), { kind: 'tape', symbol: 'BTCUSDT', name: 'tape.BTCUSDT' });
  assert.deepEqual(parseChannel('levels.ETHUSDT'), { kind: 'levels', symbol: 'ETHUSDT', name: 'levels.ETHUSDT' });
  assert.deepEqual(parseChannel('levels.BTCUSDT.okx,deribit,okx'), {
    kind: 'levels',
    symbol: 'BTCUSDT',
    venues: ['deribit', 'okx'],
    name: 'levels.BTCUSDT.deribit,okx',
  });
  assert.deepEqual(parseChannel('chain.BTCUSDT'), { kind: 'chain', symbol: 'BTCUSDT', name: 'chain.BTCUSDT' });
  assert.deepEqual(parseChannel('chain.ETHUSDT.okx,deribit'), {
    kind: 'chain',
    symbol: 'ETHUSDT',
    venues: ['deribit', 'okx'],
    name: 'chain.ETHUSDT.deribit,okx',
  });
  for (const bad of [
    'tape',
    'tape.BTC',
    'tape.BTCUSDT.deribit',
    'levels.BTCUSDT.',
    'levels.BTCUSDT.kraken',
    'chain.DOGEUSDT',
    'chain.BTCUSDT.kraken',
    'book.BTCUSDT',
    'levels.BTCUSDT.deribit.x',
    '',
  ]) {
    assert.equal(parseChannel(bad), null, bad);
  }
});

test('parseFrame: JSON-RPC errors for malformed frames', () => {
  assert.deepEqual(parseFrame('{'), { ok: false, id: null, code: -32700, message: 'parse error: not JSON' });
  assert.deepEqual(parseFrame('[1]'), { ok: false, id: null, code: -32600, message: 'a request is a JSON object' });
  assert.deepEqual(parseFrame('{"id":3}'), { ok: false, id: 3, code: -32600, message: 'method must be a string' });
  assert.deepEqual(parseFrame('{"id":"a","method":"private/buy"}'), {
    ok: false,
    id: 'a',
    code: -32601,
    message: 'unknown method private/buy',
  });
  assert.deepEqual(parseFrame('{"id":4,"method":"public/ping","params":[1]}'), {
    ok: false,
    id: 4,
    code: -32602,
    message: 'params must be an object',
  });
  assert.deepEqual(parseFrame('{"id":5,"method":"public/ping"}'), { ok: true, request: { id: 5, method: 'public/ping', params: {} } });
});

test('notification embeds the pre-serialized data', () => {
  assert.equal(
    notification('tape.BTCUSDT', 7, '{"a":1}'),
    '{"jsonrpc":"2.0","method":"subscription","params":{"channel":"tape.BTCUSDT","seq":7,"data":{"a":1}}}',
  );
});
