import type { Consumer, ConsumerRunConfig, EachBatchPayload, KafkaMessage } from 'kafkajs';
import type { BusConsumer, ConsumedBatch, ConsumedMessage } from './types.ts';
import type { CrashableConsumer } from './crashable.ts';
import { deferredCommitsOf, handlerStep, redeliveryPolicy, type ConsumerCommonOptions } from './consumer-options.ts';
import type { DeferredCommits } from './deferred-commits.ts';
import { Backoff, type RetryPolicy } from '#platform/steps/retry-policy.ts';
import { isRetriableKafkaError } from './kafka-errors.ts';
import { ConsumerRevival } from './consumer-revival.ts';
import { runStep, type PipelineStep } from '#platform/steps/step-runner.ts';

export interface KafkaConsumerOptions extends ConsumerCommonOptions<KafkaBusConsumer> {
  readonly consumer: Consumer;
  readonly groupId: string;
  /** How often the member heartbeats while a handler runs (the consumer's heartbeatInterval). */
  readonly heartbeatMs: number;
}

const ABORTED = Symbol('aborted');
/** Between attempts to reach an absent broker while joining: the shared policy, up to 5 s (rejoins ≤ 5 s after it is back). */
const JOIN_RETRY: RetryPolicy = { baseMs: 500, maxMs: 5_000 };
const EMPTY_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * One kafkajs consumer-group member behind the BusConsumer interface. kafkajs runs with autoCommit off and
 * eachBatchAutoResolve off; this wrapper splits each fetched batch into chunks of at most maxBatchSize, and after
 * the handler resolves a chunk it resolves the chunk's last offset and commits the next offset (with a commitGate:
 * once the gate allows, deferred-commits.ts, while the fetching goes on). The handler runs as
 * the pipeline step 'bus.consume'; a throw seeks the partition back to the chunk's first offset (redelivery) after
 * the shared jittered backoff; pause() makes the wrapper seek back and return, and kafkajs stops fetching.
 */
export class KafkaBusConsumer implements BusConsumer, CrashableConsumer {
  readonly groupId: string;
  private owned: { topic: string; partition: number }[] = [];
  private paused = false;
  private state: 'running' | 'stopping' | 'stopped' = 'running';
  private abort: (v: typeof ABORTED) => void = () => undefined;
  private readonly aborted: Promise<typeof ABORTED>;
  private closing: Promise<void> | null = null;
  /** Aborted by stop() and crash(): cuts a redelivery backoff short. */
  private readonly leaving = new AbortController();
  private readonly backoff: Backoff;
  private readonly step: PipelineStep<ConsumedBatch, void>;
  private readonly runConfig: ConsumerRunConfig;
  /** Runs the consumer again when kafkajs stopped it for good (consumer-revival.ts). */
  private readonly revival: ConsumerRevival;
  /** Commits waiting for SubscribeOptions.commitGate (null: a chunk commits when its handler resolves). */
  private readonly deferred: DeferredCommits | null;
  /** onBatch calls running (stop() waits for them before the deferred commits settle). */
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly options: KafkaConsumerOptions) {
    this.groupId = options.groupId;
    this.backoff = new Backoff(redeliveryPolicy(options.retryBackoffMs));
    this.step = handlerStep(options.eachBatch, this.groupId, options.log);
    this.deferred = deferredCommitsOf(options, this.groupId, (topic, partition, next) =>
      options.consumer.commitOffsets([{ topic, partition, offset: next.toString() }]),
    );
    this.runConfig = {
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: options.partitionsConcurrently,
      eachBatch: (payload) => this.tracked(this.onBatch(payload)),
    };
    this.revival = new ConsumerRevival({
      groupId: this.groupId,
      log: options.log,
      wanted: () => this.state === 'running',
      run: () => options.consumer.run(this.runConfig),
      onRestart: () => options.metrics.consumerRestarted(),
    });
    this.aborted = new Promise((resolve) => {
      this.abort = resolve;
    });
    options.consumer.on(options.consumer.events.GROUP_JOIN, (event) => {
      const owned: { topic: string; partition: number }[] = [];
      for (const [topic, partitions] of Object.entries(event.payload.memberAssignment)) {
        for (const partition of partitions) owned.push({ topic, partition });
      }
      owned.sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1));
      this.owned = owned;
      this.deferred?.retain(owned);
      this.revival.joined();
      if (this.paused) this.applyPause();
      if (this.state === 'running') options.onAssignment?.(owned.map((tp) => ({ ...tp })));
    });
    options.consumer.on(options.consumer.events.CRASH, (event) => {
      options.log.warn({ err: event.payload.error, group: this.groupId, restart: event.payload.restart }, 'kafka consumer crashed');
      if (!event.payload.restart) this.revival.crashed(event.payload.error);
    });
  }

  /**
   * Subscribe and run; resolves once the member joined its group. A broker that is away (connection refused, the
   * client's retries used up: isRetriableKafkaError) is waited for with the shared backoff (JOIN_RETRY), logged,
   * until it answers or the member is stopped: a role that starts, or joins a group, during a broker outage carries
   * on when the broker is back instead of failing its start and exiting. Any other error is thrown.
   */
  async start(fromBeginning: boolean): Promise<void> {
    const { consumer, topics, log } = this.options;
    const retry = new Backoff(JOIN_RETRY);
    for (;;) {
      try {
        await consumer.connect();
        await consumer.subscribe({ topics: [...topics], fromBeginning });
        break;
      } catch (err) {
        if (this.state !== 'running' || !isRetriableKafkaError(err)) throw err;
        log.warn({ err, group: this.groupId, attempt: retry.attempt + 1 }, 'broker unavailable while joining the group; retrying');
        if (!(await retry.wait(this.leaving.signal))) throw err;
      }
    }
    await consumer.run(this.runConfig);
  }

  pause(): void {
    this.paused = true;
    this.applyPause();
  }

  resume(): void {
    this.paused = false;
    this.applyPause();
  }

  /**
   * Tells kafkajs whether to fetch. Between a crash and the consumer's revival kafkajs has no running group and
   * refuses: the state is applied again at the next join (and onBatch hands nothing to the handler while paused).
   */
  private applyPause(): void {
    const topics = this.options.topics.map((topic) => ({ topic }));
    try {
      if (this.paused) this.options.consumer.pause(topics);
      else this.options.consumer.resume(topics);
    } catch {
      // not running right now: see above
    }
  }

  isPaused(): boolean {
    return this.paused;
  }

  assignments(): readonly { topic: string; partition: number }[] {
    return this.owned.map((tp) => ({ ...tp }));
  }

  /**
   * Finish the in-flight chunk, commit it, leave the group. With deferred commits: fetching stops, the in-flight
   * chunks finish, and the pending gates and commits settle before the member leaves.
   */
  async stop(): Promise<void> {
    if (this.state === 'running') this.state = 'stopping';
    if (this.deferred !== null && this.closing === null) {
      try {
        this.options.consumer.pause(this.options.topics.map((topic) => ({ topic })));
      } catch {
        // not running: nothing is fetched anyway
      }
      while (this.inFlight.size > 0) await Promise.all(this.inFlight);
      await this.deferred.settled();
    }
    return this.close();
  }

  /** Leave at once: the in-flight chunk's result is ignored and nothing more is committed. */
  crash(): Promise<void> {
    this.state = 'stopped';
    this.abort(ABORTED);
    this.deferred?.abandon();
    return this.close();
  }

  private tracked(batch: Promise<void>): Promise<void> {
    this.inFlight.add(batch);
    return batch.finally(() => this.inFlight.delete(batch));
  }

  private close(): Promise<void> {
    this.leaving.abort();
    this.revival.cancel();
    this.closing ??= (async () => {
      try {
        await this.options.consumer.disconnect();
      } finally {
        this.state = 'stopped';
        this.owned = [];
        this.options.onClosed(this);
      }
    })();
    return this.closing;
  }

  private isStopped(): boolean {
    return this.state === 'stopped';
  }

  private async onBatch(payload: EachBatchPayload): Promise<void> {
    const { batch, resolveOffset, commitOffsetsIfNecessary, heartbeat, isRunning, isStale } = payload;
    const { topic, partition } = batch;
    const { maxBatchSize } = this.options;
    const groupId = this.groupId;
    const all = batch.messages;
    for (let start = 0; start < all.length; start += maxBatchSize) {
      if (this.isStopped() || isStale()) return;
      const chunk = all.slice(start, start + maxBatchSize);
      const first = chunk[0];
      const last = chunk[chunk.length - 1];
      if (!first || !last) return;
      if (this.paused) {
        this.options.consumer.seek({ topic, partition, offset: first.offset });
        return;
      }
      const messages = chunk.map((m) => toConsumed(topic, partition, m));
      let outcome: typeof ABORTED | void;
      // The group must hear from this member while a handler runs long (a commit gate waiting out a broker or
      // store outage): heartbeats go on (kafkajs sends at most one per heartbeatInterval) so a short session
      // timeout only ever detects a dead process, never a busy one.
      const beat = setInterval(() => void heartbeat().catch(() => undefined), this.options.heartbeatMs);
      try {
        outcome = await Promise.race([runStep(this.step, { topic, partition, messages }).then(() => undefined), this.aborted]);
      } catch {
        // Logged by the step runner; the chunk is redelivered after the backoff.
        if (this.isStopped()) return;
        this.options.metrics.handlerError(topic, groupId);
        this.options.consumer.seek({ topic, partition, offset: first.offset });
        await this.backoff.wait(this.leaving.signal);
        return;
      } finally {
        clearInterval(beat);
      }
      this.backoff.reset();
      if (outcome === ABORTED || this.isStopped()) return;
      resolveOffset(last.offset);
      if (this.deferred !== null) this.deferred.handled(topic, partition, last.offset);
      else
        await commitOffsetsIfNecessary({
          topics: [{ topic, partitions: [{ partition, offset: (BigInt(last.offset) + 1n).toString() }] }],
        });
      this.options.metrics.consumed(topic, groupId, messages.length);
      if (!isRunning() || this.state !== 'running') return;
      await heartbeat();
    }
  }
}

function toConsumed(topic: string, partition: number, m: KafkaMessage): ConsumedMessage {
  return {
    topic,
    partition,
    offset: m.offset,
    key: m.key ? m.key.toString('utf8') : '',
    value: m.value ?? Buffer.alloc(0),
    headers: m.headers ? decodeHeaders(m.headers) : EMPTY_HEADERS,
    timestamp: Number(m.timestamp),
  };
}

function decodeHeaders(headers: NonNullable<KafkaMessage['headers']>): Readonly<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const one = Array.isArray(value) ? value[value.length - 1] : value;
    if (one !== undefined) out[name] = one.toString();
  }
  return out;
}
