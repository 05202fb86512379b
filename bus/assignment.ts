/**
 * Partition assignment inside a consumer group, as Kafka's client-side assignors do it. Pure functions: given the
 * members (with the topics each subscribes) and the partition count per topic, return each member's partitions.
 *
 * - 'range' (Kafka RangeAssignor): per topic, members sorted by id get consecutive ranges; the first
 *   `partitions % members` members get one extra.
 * - 'roundrobin' (Kafka RoundRobinAssignor): all topic-partitions sorted, dealt one by one to the members
 *   (sorted by id) that subscribe to the topic.
 * - lease groups (`assignLeasePartitions`, bus/lease.ts): round-robin, but partition 0 of each topic stays with the
 *   member that holds the lease.
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

export interface LeaseMember extends AssignmentMember {
  /** The member holds the lease (owns partition 0 and keeps it), as it said when it joined. */
  readonly holdsLease: boolean;
}

const byId = (a: AssignmentMember, b: AssignmentMember): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const byPartition = (a: TopicPartition, b: TopicPartition): number =>
  a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1;

/**
 * A lease group's assignment (bus/lease.ts): round-robin, except that partition 0 of each topic stays with the member
 * that holds the lease, so a member joining or leaving, or the group forming again after a broker restart, does not
 * move the lease and its job. The holder's round-robin partition of that topic, if any, goes to the member that
 * round-robin gave partition 0 (counts stay as balanced). With no holder, round-robin decides; with several (a member
 * frozen past its session timeout rejoins after another took over), the first of them by id keeps it.
 */
export function assignLeasePartitions(
  members: readonly LeaseMember[],
  partitionsPerTopic: ReadonlyMap<string, number>,
): Map<string, TopicPartition[]> {
  const plan = assignPartitions('roundrobin', members, partitionsPerTopic);
  const holder = members.filter((m) => m.holdsLease).sort(byId)[0];
  if (holder === undefined) return plan;
  const mine = plan.get(holder.id) ?? [];
  for (const topic of partitionsPerTopic.keys()) {
    if (!holder.topics.includes(topic)) continue;
    const isZero = (tp: TopicPartition): boolean => tp.topic === topic && tp.partition === 0;
    const other = [...plan.values()].find((tps) => tps !== mine && tps.some(isZero));
    if (other === undefined) continue; // the holder has it already, or the topic has no partitions
    other.splice(other.findIndex(isZero), 1);
    const swap = mine.findIndex((tp) => tp.topic === topic);
    if (swap !== -1) other.push(...mine.splice(swap, 1));
    mine.push({ topic, partition: 0 });
    other.sort(byPartition);
    mine.sort(byPartition);
  }
  return plan;
}
