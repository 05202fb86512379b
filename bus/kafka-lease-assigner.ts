import { AssignerProtocol, type PartitionAssigner } from 'kafkajs';
import { assignLeasePartitions, type TopicPartition } from './assignment.ts';

/** The group protocol name of lease groups; members of an older build that offer only round-robin fall back to it. */
export const LEASE_ASSIGNER = 'GexLeaseAssigner';
const VERSION = 0;
/** A member's user data when it joins: one byte, 1 when it holds the lease. */
const HOLDS = 1;

/**
 * The kafkajs assigner of lease groups (bus/lease.ts): each member says in its join metadata whether it holds the
 * lease (`holdsLease()` at the time of the join), and the group leader assigns with `assignLeasePartitions`, so
 * partition 0 stays with its holder across rebalances instead of going to the member whose random id sorts first.
 */
export function leaseAssigner(holdsLease: () => boolean): PartitionAssigner {
  return ({ cluster }) => ({
    name: LEASE_ASSIGNER,
    version: VERSION,
    async assign({ members, topics }) {
      const partitionsPerTopic = new Map(topics.map((t) => [t, cluster.findTopicPartitionMetadata(t).length]));
      const plan = assignLeasePartitions(
        members.map((m) => {
          const metadata = AssignerProtocol.MemberMetadata.decode(m.memberMetadata);
          return { id: m.memberId, topics: metadata?.topics ?? topics, holdsLease: metadata?.userData?.[0] === HOLDS };
        }),
        partitionsPerTopic,
      );
      return members.map((m) => ({
        memberId: m.memberId,
        memberAssignment: AssignerProtocol.MemberAssignment.encode({
          version: VERSION,
          assignment: byTopic(plan.get(m.memberId) ?? []),
          userData: Buffer.alloc(0),
        }),
      }));
    },
    protocol({ topics }) {
      return {
        name: LEASE_ASSIGNER,
        metadata: AssignerProtocol.MemberMetadata.encode({
          version: VERSION,
          topics,
          userData: Buffer.from([holdsLease() ? HOLDS : 0]),
        }),
      };
    },
  });
}

function byTopic(partitions: readonly TopicPartition[]): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const tp of partitions) (out[tp.topic] ??= []).push(tp.partition);
  return out;
}
