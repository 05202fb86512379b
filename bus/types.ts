/**
 * The message bus: one small interface, two implementations (kafkajs when KAFKA_BROKERS is set, an in-process
 * bus for the embedded default). Semantics every implementation guarantees:
 *
 * - Topics have a fixed number of partitions; a message goes to partition hash(key) % partitions, so all
 *   messages with one key keep their publish order.
 * - Consumers join a consumer group; the group's members share the partitions of the subscribed topics and the
 *   partitions are rebalanced when a member joins or leaves.
 * - At-least-once: a batch handler's successful return commits the offset after its last message. A handler
 *   that throws commits nothing and the batch is delivered again (to this or another member). A member that
 *   dies before committing leaves its uncommitted messages to be redelivered.
 * - Committed offsets survive a consumer restart (a new consumer of the same group resumes after them).
 * - Backpressure: `pause()` stops fetching until `resume()`; publishers wait when the bus is full (the
 *   in-process bus is bounded, Kafka is bounded by the broker).
 * - `stop()` finishes the in-flight batch, commits it and leaves the group; `close()` flushes producers.
 */

export interface BusMessage {
  readonly key: string;
  readonly value: Buffer;
  readonly headers?: Readonly<Record<string, string>>;
  /** Publish time in ms; the bus fills it in when omitted. */
  readonly timestamp?: number;
}

export interface ConsumedMessage {
  readonly topic: string;
  readonly partition: number;
  /** Offset as a decimal string (Kafka offsets are int64). */
  readonly offset: string;
  readonly key: string;
  readonly value: Buffer;
  readonly headers: Readonly<Record<string, string>>;
  readonly timestamp: number;
}

export interface ConsumedBatch {
  readonly topic: string;
  readonly partition: number;
  readonly messages: readonly ConsumedMessage[];
}

export interface TopicSpec {
  readonly name: string;
  readonly partitions: number;
}

export interface SubscribeOptions {
  readonly groupId: string;
  readonly topics: readonly string[];
  /** Where a group with no committed offset starts. Default true (earliest). */
  readonly fromBeginning?: boolean;
  /** Upper bound of messages per batch handed to `eachBatch`. */
  readonly maxBatchSize?: number;
  /**
   * How many of this member's partitions may have a batch in `eachBatch` at once (kafkajs'
   * partitionsConsumedConcurrently); batches of one partition are always handed over one after the other, in order.
   * Default 1. A handler that gathers batches into shared writes (the raw writer) takes every partition with data
   * into one write instead of one partition per write.
   */
  readonly partitionsConcurrently?: number;
  /** Called with consecutive messages of one partition; resolve = commit, throw = redeliver. */
  readonly eachBatch: (batch: ConsumedBatch) => Promise<void>;
  /**
   * Deferred commits. When set, a batch whose handler resolved counts as handled at once (the member goes on
   * fetching and handing over the next batches) and its offsets are committed only once this gate resolves for
   * them: it is asked with the last handled offset of a partition, one question at a time per partition, so one
   * commit covers every batch handled before it. A gate that rejects leaves its offsets uncommitted until the next
   * handled batch asks again (a restart or rebalance redelivers them: at-least-once). A failed commit is retried
   * while the member owns the partition. `signal` is aborted when the member crashes or loses the partition;
   * `stop()` waits for the gates and commits still pending. The state a handler keeps must therefore tolerate
   * redelivery of batches it already handled.
   */
  readonly commitGate?: (topic: string, partition: number, lastOffset: string, signal: AbortSignal) => Promise<void>;
  /** Optional hook on rebalance: the partitions now owned by this member. */
  readonly onAssignment?: (assigned: readonly { topic: string; partition: number }[]) => void;
  /**
   * Lease groups (bus/lease.ts): whether this member holds the lease, asked at each rebalance. The group then keeps
   * partition 0 of each topic with the member that holds it (bus/assignment.ts `assignLeasePartitions`), so a member
   * joining, leaving or the group forming again after a broker restart does not move the lease.
   */
  readonly holdsLease?: () => boolean;
}

export interface BusConsumer {
  readonly groupId: string;
  pause(): void;
  resume(): void;
  isPaused(): boolean;
  /** Partitions currently owned by this member. */
  assignments(): readonly { topic: string; partition: number }[];
  /** Finish the in-flight batch, commit it, leave the group. */
  stop(): Promise<void>;
}

export interface Bus {
  readonly kind: 'kafka' | 'memory';
  ensureTopics(topics: readonly TopicSpec[]): Promise<void>;
  publish(topic: string, messages: readonly BusMessage[]): Promise<void>;
  subscribe(options: SubscribeOptions): Promise<BusConsumer>;
  /** Committed offset (next message to read) per partition, and the log end, for lag metrics. */
  lag(groupId: string, topic: string): Promise<readonly { partition: number; committed: string; end: string }[]>;
  /** Stop every consumer, flush producers, disconnect. */
  close(): Promise<void>;
}
