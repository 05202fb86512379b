import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createBus } from './create-bus.ts'; // the product's way in: must load the fix before kafkajs
import { groupMessagesPerPartition, kafkajsGroupingFix } from './kafkajs-grouping-fix.ts';
import { murmur2 } from './murmur2.ts';

/** kafkajs 2.2.4's own implementation (src/producer/groupMessagesPerPartition.js), as the reference. */
function reference({
  topic,
  partitionMetadata,
  messages,
  partitioner,
}: Parameters<typeof groupMessagesPerPartition>[0]): Record<number, object[]> {
  if (partitionMetadata.length === 0) return {};
  return messages.reduce<Record<number, object[]>>((result, message) => {
    const partition = partitioner({ topic, partitionMetadata, message });
    const current = result[partition] ?? [];
    return Object.assign(result, { [partition]: [...current, message] });
  }, {});
}

test('the fix is installed when the bus is loaded the product way', () => {
  assert.equal(typeof createBus, 'function');
  assert.equal(kafkajsGroupingFix.active, true);
});

test('linear grouping: same partitions, same order as kafkajs', () => {
  const partitionMetadata = Array.from({ length: 6 }, (_, partitionId) => ({ partitionId }));
  const messages = Array.from({ length: 3000 }, (_, i) => ({ key: `BTC-${i % 97}`, value: String(i) }));
  const partitioner = ({ message }: { message: object }): number =>
    (murmur2(Buffer.from((message as { key: string }).key)) & 0x7fffffff) % 6;
  const args = { topic: 't', partitionMetadata, messages, partitioner };
  const got = groupMessagesPerPartition(args);
  assert.deepEqual(got, reference(args));
  assert.equal(
    Object.values(got).reduce((n, l) => n + l.length, 0),
    3000,
  );
  assert.deepEqual(groupMessagesPerPartition({ ...args, partitionMetadata: [] }), {});
});
