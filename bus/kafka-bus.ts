import './kafkajs-grouping-fix.ts'; // before kafkajs: see the module
import { Kafka, PartitionAssigners, Partitioners, logLevel, type Admin, type Producer } from 'kafkajs';
import type { Bus, BusConsumer, BusMessage, SubscribeOptions, TopicSpec } from './types.ts';
import { KafkaBusConsumer } from './kafka-consumer.ts';
import { leaseAssigner } from './kafka-lease-assigner.ts';
import { pinoLogCreator } from './kafka-logging.ts';
import { busMetrics, trackLag } from './bus-metrics.ts';
import { commonConsumerOptions } from './consumer-options.ts';
import { childLogger } from '#platform/log.ts';
import { withDeadline } from '#platform/deadline.ts';

export interface KafkaBusOptions {
  readonly brokers: readonly string[];
  readonly clientId: string;
  /**
   * Consumer group session timeout: how long a member may be silent before the group hands its partitions to the
   * others. Default 10 000 ms, so a killed processor's work is taken over within ~15 s (session + rejoin); members
   * heartbeat while a long handler runs, so only a dead or frozen process goes silent that long.
   */
  readonly sessionTimeout?: number;
  /** Default 1000 ms (a third of the session timeout or less, as Kafka requires). */
  readonly heartbeatInterval?: number;
  /** How long the coordinator waits for members to rejoin in a rebalance. Default 60 000 ms. */
  readonly rebalanceTimeout?: number;
  /** Longest a fetch waits for data (latency vs idle requests). Default 100 ms. */
  readonly maxWaitTimeInMs?: number;
  /** First redelivery delay ceiling after a handler threw (shared jittered backoff, doubling up to 30x). Default 500 ms. */
  readonly retryBackoffMs?: number;
  /** maxBatchSize when a subscription gives none. Default 1000. */
  readonly defaultMaxBatchSize?: number;
  /** Client retries (connect, metadata, produce): attempts and first backoff. Default 8 and 100 ms. */
  readonly retries?: number;
  readonly initialRetryTime?: number;
  /** Longest a publish waits for the producer (PUBLISH_DEADLINE_MS); tests shorten it. */
  readonly publishDeadlineMs?: number;
}

/**
 * Longest a publish waits for the producer before it fails and the producer is replaced. kafkajs ends a send that
 * fails on its own (a 30 s request timeout, 8 retries backing off up to 5 s: while the broker was down each send
 * failed after ~30 s), but nothing bounded a send that is never answered, and one batch that never settles would hold
 * its publisher's whole chain. The caller retries a failed publish (at-least-once: a send that still lands later is a
 * duplicate the stores collapse by id), on a new producer with new connections.
 */
export const PUBLISH_DEADLINE_MS = 60_000;

/**
 * The Kafka bus (kafkajs 2.2.4). Producer: idempotent (acks=all, one request in flight per broker), bounded
 * retries with exponential backoff (kafkajs warns that bounded retries weaken exactly-once; the bus promises
 * at-least-once, and a publish to a missing topic must fail rather than hang), Kafka's murmur2 partitioner
 * (kafkajs DefaultPartitioner, chosen explicitly). Consumers: see kafka-consumer.ts.
 */
export class KafkaBus implements Bus {
  readonly kind = 'kafka' as const;
  private readonly kafka: Kafka;
  private readonly consumers = new Set<KafkaBusConsumer>();
  private readonly metrics = busMetrics('kafka');
  private readonly log = childLogger('kafka-bus');
  private admin: Promise<Admin> | null = null;
  private producer: Promise<Producer> | null = null;
  private closed = false;

  constructor(private readonly options: KafkaBusOptions) {
    if (options.brokers.length === 0) throw new Error('kafka bus: no brokers');
    this.kafka = new Kafka({
      clientId: options.clientId,
      brokers: [...options.brokers],
      logLevel: logLevel.WARN,
      logCreator: pinoLogCreator(this.log),
      connectionTimeout: 3000,
      requestTimeout: 30_000,
      retry: { retries: options.retries ?? 8, initialRetryTime: options.initialRetryTime ?? 100, maxRetryTime: 5000 },
    });
  }

  async ensureTopics(topics: readonly TopicSpec[]): Promise<void> {
    this.assertOpen();
    if (topics.length === 0) return;
    const admin = await this.getAdmin();
    await admin.createTopics({
      topics: topics.map((t) => ({ topic: t.name, numPartitions: t.partitions })),
      waitForLeaders: true,
    });
    // Existing topics are kept as they are; wait until metadata shows every partition with a leader.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const { topics: meta } = await admin.fetchTopicMetadata({ topics: topics.map((t) => t.name) });
      const ready = topics.every((t) => {
        const m = meta.find((x) => x.name === t.name);
        return m !== undefined && m.partitions.length > 0 && m.partitions.every((p) => p.leader >= 0);
      });
      if (ready) {
        for (const t of topics) {
          const have = meta.find((x) => x.name === t.name)?.partitions.length;
          if (have !== t.partitions)
            this.log.warn({ topic: t.name, have, wanted: t.partitions }, 'topic exists with another partition count');
        }
        return;
      }
      if (Date.now() > deadline) throw new Error(`kafka bus: topics not ready: ${topics.map((t) => t.name).join(', ')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async publish(topic: string, messages: readonly BusMessage[]): Promise<void> {
    if (messages.length === 0) return;
    const deadlineMs = this.options.publishDeadlineMs ?? PUBLISH_DEADLINE_MS;
    let timedOut = false;
    let producer: Promise<Producer> | null = null;
    try {
      this.assertOpen();
      producer = this.getProducer();
      const now = String(Date.now());
      const sent = producer.then((p) =>
        p.send({
          topic,
          acks: -1,
          messages: messages.map((m) => ({
            key: m.key,
            value: m.value,
            timestamp: m.timestamp === undefined ? now : String(m.timestamp),
            ...(m.headers ? { headers: { ...m.headers } } : {}),
          })),
        }),
      );
      await withDeadline(sent, deadlineMs, () => {
        timedOut = true;
        return new Error(`kafka bus: publish to ${topic} unanswered after ${deadlineMs} ms; the producer is replaced`);
      });
      this.metrics.published(topic, messages.length);
    } catch (err) {
      this.metrics.publishError(topic);
      if (timedOut && producer !== null) this.replaceProducer(producer);
      throw err;
    }
  }

  async subscribe(options: SubscribeOptions): Promise<BusConsumer> {
    this.assertOpen();
    if (options.topics.length === 0) throw new Error('kafka bus: subscribe needs at least one topic');
    const o = this.options;
    const consumer = this.kafka.consumer({
      groupId: options.groupId,
      sessionTimeout: o.sessionTimeout ?? 10_000,
      heartbeatInterval: o.heartbeatInterval ?? 1_000,
      rebalanceTimeout: o.rebalanceTimeout ?? 60_000,
      maxWaitTimeInMs: o.maxWaitTimeInMs ?? 100,
      retry: { retries: o.retries ?? 8, initialRetryTime: o.initialRetryTime ?? 100, maxRetryTime: 5000 },
      // a lease group offers round-robin too: members of a build without the lease assigner fall back to it
      ...(options.holdsLease === undefined
        ? {}
        : { partitionAssigners: [leaseAssigner(options.holdsLease), PartitionAssigners.roundRobin] }),
    });
    const untrack = trackLag(this, options.groupId, options.topics);
    const member: KafkaBusConsumer = new KafkaBusConsumer({
      consumer,
      groupId: options.groupId,
      heartbeatMs: o.heartbeatInterval ?? 1_000,
      ...commonConsumerOptions<KafkaBusConsumer>(
        options,
        { maxBatchSize: options.maxBatchSize ?? o.defaultMaxBatchSize ?? 1000, retryBackoffMs: o.retryBackoffMs ?? 500 },
        { metrics: this.metrics, log: this.log, consumers: this.consumers },
        untrack,
      ),
    });
    this.consumers.add(member);
    try {
      await member.start(options.fromBeginning ?? true);
    } catch (err) {
      await member.crash().catch(() => undefined);
      throw err;
    }
    return member;
  }

  async lag(groupId: string, topic: string): Promise<readonly { partition: number; committed: string; end: string }[]> {
    const admin = await this.getAdmin();
    const [committed, ends] = await Promise.all([admin.fetchOffsets({ groupId, topics: [topic] }), admin.fetchTopicOffsets(topic)]);
    const byPartition = new Map<number, string>();
    for (const p of committed.find((t) => t.topic === topic)?.partitions ?? []) byPartition.set(p.partition, p.offset);
    return ends
      .map((e) => ({ partition: e.partition, committed: byPartition.get(e.partition) ?? '-1', end: e.high }))
      .sort((a, b) => a.partition - b.partition);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.consumers].map((c) => c.stop()));
    const [producer, admin] = await Promise.allSettled([this.producer, this.admin]);
    if (producer.status === 'fulfilled' && producer.value) await producer.value.disconnect();
    if (admin.status === 'fulfilled' && admin.value) await admin.value.disconnect();
  }

  private getAdmin(): Promise<Admin> {
    this.admin ??= (async () => {
      const admin = this.kafka.admin();
      await admin.connect();
      return admin;
    })().catch((err: unknown) => {
      this.admin = null;
      throw err;
    });
    return this.admin;
  }

  private getProducer(): Promise<Producer> {
    this.producer ??= (async () => {
      const producer = this.kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        allowAutoTopicCreation: false,
        createPartitioner: Partitioners.DefaultPartitioner,
        retry: { retries: this.options.retries ?? 8, initialRetryTime: this.options.initialRetryTime ?? 100, maxRetryTime: 5000 },
      });
      await producer.connect();
      return producer;
    })().catch((err: unknown) => {
      this.producer = null;
      throw err;
    });
    return this.producer;
  }

  /**
   * Drops `stale` (a producer whose send went unanswered past the deadline) if it is still the current one: the next
   * publish connects a new one; the old one is disconnected in the background (its late outcomes are dropped).
   */
  private replaceProducer(stale: Promise<Producer>): void {
    if (this.producer !== stale) return;
    this.producer = null;
    this.metrics.producerReplaced();
    this.log.warn({}, 'kafka producer replaced after an unanswered publish');
    void stale.then((p) => p.disconnect()).catch(() => undefined);
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('kafka bus is closed');
  }
}
