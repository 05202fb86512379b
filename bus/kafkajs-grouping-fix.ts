import { createRequire } from 'node:module';

/**
 * kafkajs 2.2.4 groups the messages of a send per partition with `[...current, message]` for every message:
 * O(n²) in the messages per partition (tulios/kafkajs#1576, still open upstream; kafkajs is no longer
 * maintained). With 5,000-message batches over 6 partitions that was ~10 % of the publishing process's CPU
 * (bench/bus.ts, profiled). This module puts an O(n) grouping with the same result (partition -> messages in
 * send order) into the CommonJS module cache before kafkajs loads it, so kafkajs's sendMessages picks it up.
 * It must be evaluated before the first `import … from 'kafkajs'` of the process: the modules of ops/bus that
 * import kafkajs import it first. `kafkajsGroupingFix.active` says whether it took effect.
 */

interface PartitionMetadata {
  readonly partitionId: number;
}
interface GroupingArgs {
  readonly topic: string;
  readonly partitionMetadata: readonly PartitionMetadata[];
  readonly messages: readonly object[];
  readonly partitioner: (args: { topic: string; partitionMetadata: readonly PartitionMetadata[]; message: object }) => number;
}

let calls = 0;

/** Linear replacement of kafkajs/src/producer/groupMessagesPerPartition.js (same inputs, same output). */
export function groupMessagesPerPartition({ topic, partitionMetadata, messages, partitioner }: GroupingArgs): Record<number, object[]> {
  calls++;
  const out: Record<number, object[]> = {};
  if (partitionMetadata.length === 0) return out;
  for (const message of messages) {
    const partition = partitioner({ topic, partitionMetadata, message });
    (out[partition] ??= []).push(message);
  }
  return out;
}

const require = createRequire(import.meta.url);
const groupingPath = require.resolve('kafkajs/src/producer/groupMessagesPerPartition.js');
const sendMessagesPath = require.resolve('kafkajs/src/producer/sendMessages.js');

function install(): boolean {
  if (require.cache[sendMessagesPath] !== undefined) return false; // kafkajs already captured the original
  require(groupingPath);
  const entry = require.cache[groupingPath];
  if (entry === undefined) return false;
  entry.exports = groupMessagesPerPartition;
  return true;
}

export const kafkajsGroupingFix = {
  /** True when kafkajs will use the linear grouping. */
  active: install(),
  /** Sends grouped by it so far (a Kafka test checks it is really on the send path). */
  calls: (): number => calls,
} as const;
