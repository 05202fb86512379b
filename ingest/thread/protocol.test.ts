import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MessageChannel } from 'node:worker_threads';
import type { BusMessage } from '#bus/types.ts';
import { packMessages, packTransfer, unpackMessages, type ThreadRequest } from './protocol.ts';
import { PortBus } from './port-bus.ts';

const MESSAGES: BusMessage[] = [
  { key: 'BTCUSDT', value: Buffer.from([1, 2, 3]) },
  { key: 'ETHUSDT', value: Buffer.alloc(0), headers: { reason: 'dead letter' } },
  { key: 'SOLUSDT', value: Buffer.from('héllo', 'utf8'), timestamp: 1_795_000_000_123 },
];

test('packMessages copies every value into one buffer; unpackMessages gives the messages back as views of it', () => {
  // Values that are views of one larger pool (as encoders hand them out): only their own bytes are packed.
  const pool = Buffer.from([9, 9, 1, 2, 3, 9]);
  const packed = packMessages([{ key: 'k', value: pool.subarray(2, 5) }, ...MESSAGES.slice(1)]);
  assert.equal(packed.body.byteLength, 3 + 0 + 6);
  assert.deepEqual([...packed.ends], [3, 3, 9]);
  assert.deepEqual(packed.headers, [null, { reason: 'dead letter' }, null]);
  assert.deepEqual([...(packed.timestamps ?? [])], [NaN, NaN, 1_795_000_000_123]);
  assert.deepEqual(
    [packed.keyTable, [...packed.keyIndex]],
    [
      ['k', 'ETHUSDT', 'SOLUSDT'],
      [0, 1, 2],
    ],
  );
  const back = unpackMessages(packed);
  assert.deepEqual(
    back.map((m) => [...m.value]),
    [[1, 2, 3], [], [...Buffer.from('héllo', 'utf8')]],
  );
  assert.ok(
    back.every((m) => m.value.buffer === packed.body),
    'no copy on unpack',
  );
  assert.deepEqual(back.slice(1), MESSAGES.slice(1));
  assert.deepEqual(back[0], { key: 'k', value: Buffer.from([1, 2, 3]) });
});

test('packMessages keeps each distinct key once: messages point into the key table', () => {
  const keys = ['okx:BTCUSDT', 'okx:ETHUSDT', 'okx:BTCUSDT', 'deribit:BTCUSDT', 'okx:ETHUSDT'];
  const packed = packMessages(keys.map((key, i) => ({ key, value: Buffer.from([i]) })));
  assert.deepEqual(packed.keyTable, ['okx:BTCUSDT', 'okx:ETHUSDT', 'deribit:BTCUSDT']);
  assert.deepEqual([...packed.keyIndex], [0, 1, 0, 2, 1]);
  assert.deepEqual(
    unpackMessages(packed).map((m) => [m.key, m.value[0]]),
    keys.map((k, i) => [k, i]),
  );
  assert.equal(packTransfer(packed).length, 3, 'body, key indexes and ends move; no timestamps buffer');
});

test('packMessages leaves headers and timestamps out when no message has them', () => {
  const packed = packMessages([MESSAGES[0] as BusMessage]);
  assert.equal('headers' in packed, false);
  assert.equal('timestamps' in packed, false);
  assert.deepEqual(unpackMessages(packed), [MESSAGES[0]]);
});

test('PortBus: a publish crosses as one packed request and settles with the owner’s answer', async () => {
  const { port1, port2 } = new MessageChannel();
  const bus = new PortBus(port1);
  const seen: ThreadRequest[] = [];
  port2.on('message', (m: ThreadRequest) => {
    seen.push(m);
    if (m.kind === 'publish') bus.settle(m.id, m.topic === 'refused' ? 'bus refused it' : undefined);
  });
  try {
    await bus.publish('md.option_trades.v1', MESSAGES);
    const first = seen[0];
    assert.ok(first?.kind === 'publish');
    assert.equal(first.topic, 'md.option_trades.v1');
    assert.deepEqual(unpackMessages(first.packed), MESSAGES);
    await assert.rejects(bus.publish('refused', MESSAGES), /bus refused it/);
    await bus.publish('md.option_trades.v1', []);
    assert.equal(seen.length, 2, 'an empty publish does not cross');
    await assert.rejects(bus.subscribe(), /only publishes/);
    // Closing rejects what waits and every later publish.
    port2.removeAllListeners('message');
    const waiting = bus.publish('md.option_trades.v1', MESSAGES);
    await bus.close();
    await assert.rejects(waiting, /closed/);
    await assert.rejects(bus.publish('md.option_trades.v1', MESSAGES), /closed/);
  } finally {
    port1.close();
    port2.close();
  }
});
