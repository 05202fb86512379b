/**
 * Partition assignment inside a consumer group, as Kafka's client-side assignors do it. Pure functions: given the
 * members (with the topics each subscribes) and the partition count per topic, return each member's partitions.
 *
 * - 'range' (Kafka RangeAssignor): per topic, members sorted by id get consecutive ranges; the first
 *   `partitions % members` members get one extra.
 * - 'roundrobin' (Kafka RoundRobinAssignor): all topic-partitions sorted, dealt one by one to the members
 *   (sorted by id) that subscribe to the topic.
 */

export type AssignmentStrategy = 'range' | 'roundrobin';

export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

export interface AssignmentMember {
  readonly id: string;
  readonly topics: readonly string[];
}

export function assignPartitions(
  strategy: AssignmentStrategy,
  members: readonly AssignmentMember[],
  partitionsPerTopic: ReadonlyMap<string, number>,
): Map<string, TopicPartition[]> {
  const sorted = [...members].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const result = new Map<string, TopicPartition[]>(sorted.map((m) => [m.id, []]));
  const topics = [...partitionsPerTopic.keys()].sort();
  if (strategy === 'range') {
    for (const topic of topics) {
      const count = partitionsPerTopic.get(topic) ?? 0;
      const subscribers = sorted.filter((m) => m.topics.includes(topic));
      if (subscribers.length === 0) continue;
      const base = Math.floor(count / subscribers.length);
      const extra = count % subscribers.length;
      let next = 0;
      subscribers.forEach((member, i) => {
        const n = base + (i < extra ? 1 : 0);
        const list = result.get(member.id);
        for (let p = next; p < next + n; p++) list?.push({ topic, partition: p });
        next += n;
      });
    }
    return result;
  }
  let cursor = 0;
  for (const topic of topics) {
    const count = partitionsPerTopic.get(topic) ?? 0;
    for (let p = 0; p < count; p++) {
      // Deal to the next member (in id order) that subscribes to this topic.
      for (let tries = 0; tries < sorted.length; tries++) {
        const member = sorted[cursor % sorted.length];
        cursor++;
        if (member?.topics.includes(topic)) {
          result.get(member.id)?.push({ topic, partition: p });
          break;
        }
      }
    }
  }
  return result;
}
