import type { ConsumedBatch } from './types.ts';
import type { MemoryTopic, TopicReader } from './memory-topic.ts';
import { assignLeasePartitions, assignPartitions, type AssignmentStrategy, type TopicPartition } from './assignment.ts';

/** What the group needs from one of its members. */
export interface GroupMember {
  readonly memberId: string;
  readonly topics: readonly string[];
  /** A lease group's member: whether it holds the lease (SubscribeOptions.holdsLease). */
  readonly holdsLease: (() => boolean) | undefined;
  /** New assignment after a rebalance. */
  assign(partitions: readonly TopicPartition[]): void;
  /** There may be work (data, a released partition, a rebalance). */
  wake(): void;
}

interface PartitionState {
  committed: number;
  /** Next offset to hand out: past `committed` while handled batches wait for deferred commits (commitGate). */
  position: number;
  owner: GroupMember | null;
  /** Member holding an uncommitted in-flight batch, and that batch's token (0 = none). */
  holder: GroupMember | null;
  token: number;
}

interface GroupTopic {
  readonly topic: MemoryTopic;
  readonly parts: PartitionState[];
}

/** A batch handed to a member; `complete` commits it (or not) if the claim is still valid. */
export interface Claim {
  readonly batch: ConsumedBatch;
  readonly token: number;
  readonly next: number;
}

/**
 * One consumer group of the in-process bus: members, partition ownership (rebalanced on every join/leave),
 * committed offsets (kept for the bus lifetime, so a restarted consumer resumes) and in-flight batches. A
 * partition whose batch is in flight is not handed to its new owner until that batch completes, so a
 * rebalance never delivers a message twice unless the batch failed or its member crashed.
 */
export class MemoryGroup implements TopicReader {
  private readonly members: GroupMember[] = [];
  private readonly topics = new Map<string, GroupTopic>();
  private nextToken = 1;

  constructor(
    readonly id: string,
    private readonly strategy: AssignmentStrategy,
  ) {}

  /** Start holding offsets on `topic` (first subscription: earliest retained or the log end). */
  attachTopic(topic: MemoryTopic, fromBeginning: boolean): void {
    if (this.topics.has(topic.name)) return;
    const parts = topic.partitions.map((p) => ({
      committed: fromBeginning ? p.earliest : p.end,
      position: fromBeginning ? p.earliest : p.end,
      owner: null,
      holder: null,
      token: 0,
    }));
    this.topics.set(topic.name, { topic, parts });
    topic.addReader(this);
  }

  join(member: GroupMember): void {
    this.members.push(member);
    this.rebalance();
  }

  /** Remove a member. In-flight batches it still holds are abandoned (uncommitted, redelivered). */
  leave(member: GroupMember): void {
    const i = this.members.indexOf(member);
    if (i >= 0) this.members.splice(i, 1);
    for (const gt of this.topics.values()) {
      for (const state of gt.parts) {
        if (state.holder === member) {
          state.holder = null;
          state.token = 0;
        }
      }
    }
    this.rebalance();
  }

  committedOffset(topic: string, partition: number): number {
    return this.topics.get(topic)?.parts[partition]?.committed ?? 0;
  }

  hasTopic(topic: string): boolean {
    return this.topics.has(topic);
  }

  onData(topic: string): void {
    const gt = this.topics.get(topic);
    if (!gt) return;
    for (const state of gt.parts) state.owner?.wake();
  }

  /**
   * The next batch for `member` among `owned` (tried from `cursor` on, round robin), or null when none of its
   * partitions has uncommitted messages that are not already in flight.
   */
  claim(member: GroupMember, owned: readonly TopicPartition[], cursor: number, max: number): Claim | null {
    const n = owned.length;
    for (let i = 0; i < n; i++) {
      const tp = owned[(cursor + i) % n];
      if (!tp) continue;
      const gt = this.topics.get(tp.topic);
      const state = gt?.parts[tp.partition];
      const part = gt?.topic.partitions[tp.partition];
      if (!state || !part || state.owner !== member || state.token !== 0) continue;
      const from = Math.max(state.position, state.committed, part.earliest);
      if (from >= part.end) continue;
      const messages = part.read(from, max);
      const token = this.nextToken++;
      state.token = token;
      state.holder = member;
      return { batch: { topic: tp.topic, partition: tp.partition, messages }, token, next: from + messages.length };
    }
    return null;
  }

  /**
   * Finish a claimed batch. `ok` and `commit`: commit it; `ok` alone (deferred commits): the next claim starts after
   * it while its commit waits (`commitUpTo`), unless the partition moved to another member meanwhile. Returns false
   * when the claim was abandoned (member crashed).
   */
  complete(claim: Claim, ok: boolean, commit = true): boolean {
    const gt = this.topics.get(claim.batch.topic);
    const state = gt?.parts[claim.batch.partition];
    if (!gt || !state || state.token !== claim.token) return false;
    const holder = state.holder;
    state.token = 0;
    state.holder = null;
    if (ok && commit) {
      state.committed = claim.next;
      state.position = claim.next;
      gt.topic.onCommit(claim.batch.partition);
    } else if (ok && state.owner === holder) state.position = claim.next;
    // The partition may have moved to another member while the batch was in flight.
    state.owner?.wake();
    return true;
  }

  /** A deferred commit of `member`: commits up to `next` if it still owns the partition; false when it does not. */
  commitUpTo(member: GroupMember, topic: string, partition: number, next: number): boolean {
    const gt = this.topics.get(topic);
    const state = gt?.parts[partition];
    if (!gt || !state || state.owner !== member) return false;
    if (next > state.committed) {
      state.committed = next;
      gt.topic.onCommit(partition);
    }
    return true;
  }

  private rebalance(): void {
    const counts = new Map<string, number>();
    for (const [name, gt] of this.topics) counts.set(name, gt.parts.length);
    const members = this.members.map((m) => ({ id: m.memberId, topics: m.topics, holdsLease: m.holdsLease?.() === true }));
    const lease = this.members.some((m) => m.holdsLease !== undefined);
    const plan = lease ? assignLeasePartitions(members, counts) : assignPartitions(this.strategy, members, counts);
    const before = new Map<PartitionState, GroupMember | null>();
    for (const gt of this.topics.values())
      for (const state of gt.parts) {
        before.set(state, state.owner);
        state.owner = null;
      }
    for (const member of this.members) {
      const owned = plan.get(member.memberId) ?? [];
      for (const tp of owned) {
        const state = this.topics.get(tp.topic)?.parts[tp.partition];
        if (state) state.owner = member;
      }
    }
    // A partition that changes hands is read again from its committed offset (handled batches whose deferred
    // commit had not landed are redelivered to the new owner).
    for (const [state, owner] of before) if (state.owner !== owner) state.position = state.committed;
    for (const member of this.members) {
      member.assign(plan.get(member.memberId) ?? []);
      member.wake();
    }
  }
}
