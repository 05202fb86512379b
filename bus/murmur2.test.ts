import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { murmur2, murmur2String, partitionForKey } from './murmur2.ts';

// kafkajs' own implementation, loaded by path (it is not exported), as an independent reference.
const require = createRequire(import.meta.url);
const kafkajsMurmur2 = require('kafkajs/src/producer/partitioners/default/murmur2.js') as (key: string) => number;

describe('murmur2', () => {
  test('matches the test vectors of Kafka UtilsTest.testMurmur2', () => {
    const vectors: readonly (readonly [string, number])[] = [
      ['21', -973932308],
      ['foobar', -790332482],
      ['a-little-bit-long-string', -985981536],
      ['a-little-bit-longer-string', -1486304829],
      ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
      ['abc', 479470107],
    ];
    for (const [key, expected] of vectors) {
      assert.equal(murmur2String(key), expected, key);
      assert.equal(murmur2(Buffer.from(key)), expected, key);
    }
  });

  test('agrees with kafkajs for ASCII, non-ASCII and long keys', () => {
    const keys = ['', 'a', 'BTCUSDT', 'deribit:BTC-27JUN25-100000-C', 'Ünïcødé-κλειδί-键', 'x'.repeat(300)];
    for (let i = 0; i < 500; i++) keys.push(`key-${i}-${(i * 7919) % 1013}`);
    for (const key of keys) assert.equal(murmur2String(key), kafkajsMurmur2(key), key);
  });

  test('partitionForKey is toPositive(hash) % n', () => {
    // murmur2('foobar') = -790332482; & 0x7fffffff = 1357151166; % 6 = 0, % 7 = 2
    assert.equal(partitionForKey('foobar', 6), 1357151166 % 6);
    assert.equal(partitionForKey('foobar', 7), 1357151166 % 7);
    assert.equal(partitionForKey('abc', 12), 479470107 % 12);
  });
});
