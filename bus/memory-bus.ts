import type { Bus, BusConsumer, BusMessage, SubscribeOptions, TopicSpec } from './types.ts';
import type { AssignmentStrategy } from './assignment.ts';
import { MemoryTopic } from './memory-topic.ts';
import { MemoryGroup } from './memory-group.ts';
import { MemoryConsumer } from './memory-consumer.ts';
import { busMetrics, trackLag } from './bus-metrics.ts';
import { commonConsumerOptions } from './consumer-options.ts';
import { childLogger } from '#platform/log.ts';

export interface MemoryBusOptions {
  readonly clientId?: string;
  /** Uncommitted messages a partition holds before publishers wait. Default 100 000. */
  readonly maxBufferedPerPartition?: number;
  /** Partition assignor inside a group. Default 'range' (Kafka's default). */
  readonly assignment?: AssignmentStrategy;
  /** First redelivery delay ceiling after a handler threw (shared jittered backoff, doubling up to 30x). Default 100 ms. */
  readonly retryBackoffMs?: number;
  /** maxBatchSize when a subscription gives none. Default 1000. */
  readonly defaultMaxBatchSize?: number;
}

/**
 * The in-process bus (embedded default): the semantics of bus/types.ts inside one process. Partitioning is
 * Kafka's (murmur2 of the UTF-8 key, see murmur2.ts), so a key lands on the same partition number as on Kafka.
 * Memory is bounded: messages are freed once every group that subscribed to the topic committed them, and
 * publishing into a partition with `maxBufferedPerPartition` uncommitted messages waits. A group keeps holding
 * retention after its last member stops (its offsets survive for the bus lifetime), so a group that is never
 * restarted eventually blocks publishers on that topic — as a stuck consumer would fill a disk.
 */
export class MemoryBus implements Bus {
  readonly kind = 'memory' as const;
  private readonly topics = new Map<string, MemoryTopic>();
  private readonly groups = new Map<string, MemoryGroup>();
  private readonly consumers = new Set<MemoryConsumer>();
  private readonly capacity: number;
  private readonly strategy: AssignmentStrategy;
  private readonly retryBackoffMs: number;
  private readonly defaultMaxBatchSize: number;
  private readonly clientId: string;
  private readonly metrics = busMetrics('memory');
  private readonly log = childLogger('memory-bus');
  private memberSeq = 0;
  private closed = false;

  constructor(options: MemoryBusOptions = {}) {
    this.clientId = options.clientId ?? 'gex';
    this.capacity = positiveInt(options.maxBufferedPerPartition ?? 100_000, 'maxBufferedPerPartition');
    this.strategy = options.assignment ?? 'range';
    this.retryBackoffMs = options.retryBackoffMs ?? 100;
    this.defaultMaxBatchSize = positiveInt(options.defaultMaxBatchSize ?? 1000, 'defaultMaxBatchSize');
  }

  async ensureTopics(topics: readonly TopicSpec[]): Promise<void> {
    this.assertOpen();
    for (const spec of topics) {
      positiveInt(spec.partitions, `partitions of ${spec.name}`);
      if (!this.topics.has(spec.name)) this.topics.set(spec.name, new MemoryTopic(spec.name, spec.partitions, this.capacity));
    }
  }

  publish(topic: string, messages: readonly BusMessage[]): Promise<void> {
    try {
      this.assertOpen();
      const t = this.topics.get(topic);
      if (!t) throw new Error(`memory bus: unknown topic "${topic}" (call ensureTopics first)`);
      const wait = t.publish(messages);
      this.metrics.published(topic, messages.length);
      if (!wait) return Promise.resolve();
      return wait.catch((err: unknown) => {
        this.metrics.publishError(topic);
        throw err;
      });
    } catch (err) {
      this.metrics.publishError(topic);
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  async subscribe(options: SubscribeOptions): Promise<BusConsumer> {
    this.assertOpen();
    if (options.topics.length === 0) throw new Error('memory bus: subscribe needs at least one topic');
    const topics = options.topics.map((name) => {
      const t = this.topics.get(name);
      if (!t) throw new Error(`memory bus: unknown topic "${name}" (call ensureTopics first)`);
      return t;
    });
    let group = this.groups.get(options.groupId);
    if (!group) {
      group = new MemoryGroup(options.groupId, this.strategy);
      this.groups.set(options.groupId, group);
    }
    for (const t of topics) group.attachTopic(t, options.fromBeginning ?? true);
    const untrack = trackLag(this, options.groupId, options.topics);
    const consumer: MemoryConsumer = new MemoryConsumer({
      memberId: `${this.clientId}-${options.groupId}-${++this.memberSeq}`,
      group,
      ...(options.holdsLease ? { holdsLease: options.holdsLease } : {}),
      ...commonConsumerOptions<MemoryConsumer>(
        options,
        {
          maxBatchSize: positiveInt(options.maxBatchSize ?? this.defaultMaxBatchSize, 'maxBatchSize'),
          retryBackoffMs: this.retryBackoffMs,
        },
        { metrics: this.metrics, log: this.log, consumers: this.consumers },
        untrack,
      ),
    });
    this.consumers.add(consumer);
    consumer.start();
    return consumer;
  }

  async lag(groupId: string, topic: string): Promise<readonly { partition: number; committed: string; end: string }[]> {
    const t = this.topics.get(topic);
    if (!t) throw new Error(`memory bus: unknown topic "${topic}"`);
    const group = this.groups.get(groupId);
    const known = group?.hasTopic(topic) ?? false;
    return t.partitions.map((p) => ({
      partition: p.partition,
      committed: known && group ? String(group.committedOffset(topic, p.partition)) : '-1',
      end: String(p.end),
    }));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.consumers].map((c) => c.stop()));
    const err = new Error('memory bus closed');
    for (const t of this.topics.values()) t.failPending(err);
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('memory bus is closed');
  }
}

function positiveInt(n: number, what: string): number {
  if (!Number.isInteger(n) || n <= 0) throw new Error(`memory bus: ${what} must be a positive integer, got ${n}`);
  return n;
}
