import type { BusConsumer, ConsumedBatch } from './types.ts';
import type { CrashableConsumer } from './crashable.ts';
import { deferredCommitsOf, handlerStep, redeliveryPolicy, type ConsumerCommonOptions } from './consumer-options.ts';
import type { DeferredCommits } from './deferred-commits.ts';
import { Backoff } from '#platform/steps/retry-policy.ts';
import { runStep, type PipelineStep } from '#platform/steps/step-runner.ts';
import type { Claim, GroupMember, MemoryGroup } from './memory-group.ts';
import type { TopicPartition } from './assignment.ts';

export interface MemoryConsumerOptions extends ConsumerCommonOptions<MemoryConsumer> {
  readonly memberId: string;
  readonly group: MemoryGroup;
  readonly holdsLease?: () => boolean;
}

type State = 'running' | 'stopping' | 'stopped';

/**
 * One member of an in-process consumer group. Each of its `partitionsConcurrently` loops (default 1) hands one batch
 * at a time to the handler (no per-message promises), round robin over the owned partitions, and sleeps on a wake-up
 * when there is nothing to do (no data, paused, or the partitions with data have a batch in flight already: a
 * partition is never in two loops at once, so its batches stay in order).
 */
export class MemoryConsumer implements BusConsumer, CrashableConsumer, GroupMember {
  readonly groupId: string;
  readonly memberId: string;
  readonly topics: readonly string[];
  readonly holdsLease: (() => boolean) | undefined;
  private owned: readonly TopicPartition[] = [];
  private paused = false;
  private state: State = 'running';
  private cursor = 0;
  private waiters: (() => void)[] = [];
  /** Aborted by stop() and crash(): cuts a redelivery backoff short. */
  private readonly leaving = new AbortController();
  private readonly backoff: Backoff;
  private readonly step: PipelineStep<ConsumedBatch, void>;
  private loop: Promise<void> = Promise.resolve();
  /** Commits waiting for SubscribeOptions.commitGate (null: a batch commits when its handler resolves). */
  private readonly deferred: DeferredCommits | null;

  constructor(private readonly options: MemoryConsumerOptions) {
    this.groupId = options.group.id;
    this.memberId = options.memberId;
    this.topics = options.topics;
    this.holdsLease = options.holdsLease;
    this.backoff = new Backoff(redeliveryPolicy(options.retryBackoffMs));
    this.step = handlerStep(options.eachBatch, this.groupId, options.log);
    // A member that no longer owns the partition commits nothing (its successor reads from the committed offset).
    this.deferred = deferredCommitsOf(options, this.groupId, async (topic, partition, next) => {
      options.group.commitUpTo(this, topic, partition, Number(next));
    });
  }

  /** Join the group and start the delivery loop. */
  start(): void {
    this.options.group.join(this);
    this.loop = this.run();
  }

  assign(partitions: readonly TopicPartition[]): void {
    this.owned = partitions;
    this.cursor = 0;
    this.deferred?.retain(partitions);
    if (this.state === 'running') this.options.onAssignment?.(partitions.map((tp) => ({ ...tp })));
  }

  wake(): void {
    const ws = this.waiters;
    if (ws.length === 0) return;
    this.waiters = [];
    for (const w of ws) w();
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.wake();
  }

  isPaused(): boolean {
    return this.paused;
  }

  assignments(): readonly { topic: string; partition: number }[] {
    return this.owned.map((tp) => ({ ...tp }));
  }

  async stop(): Promise<void> {
    if (this.state === 'stopped') return;
    if (this.state === 'stopping') return this.loop;
    this.state = 'stopping';
    this.wake();
    this.leaving.abort();
    await this.loop;
    await this.deferred?.settled();
    this.leave();
  }

  /** Leave at once; the in-flight batch (if any) is abandoned uncommitted and goes to the remaining members. */
  async crash(): Promise<void> {
    if (this.state === 'stopped') return;
    this.deferred?.abandon();
    this.leave();
    this.wake();
    this.leaving.abort();
  }

  private leave(): void {
    if (this.state === 'stopped') return;
    this.state = 'stopped';
    this.owned = [];
    this.options.group.leave(this);
    this.options.onClosed(this);
  }

  /** Read through a method: the state changes while the loop awaits, which narrowing cannot see. */
  private isStopped(): boolean {
    return this.state === 'stopped';
  }

  private idle(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.waiters.push(resolve);
    });
  }

  private async run(): Promise<void> {
    const loops = Array.from({ length: this.options.partitionsConcurrently }, () => this.deliver());
    await Promise.all(loops);
  }

  private async deliver(): Promise<void> {
    const { group, maxBatchSize } = this.options;
    while (this.state === 'running') {
      const claim = this.paused ? null : group.claim(this, this.owned, this.cursor, maxBatchSize);
      if (!claim) {
        await this.idle();
        continue;
      }
      this.cursor = (this.cursor + 1) % Math.max(1, this.owned.length);
      const ok = await this.handle(claim);
      if (this.isStopped()) return; // crashed: the group already abandoned the claim
      group.complete(claim, ok, this.deferred === null);
      const last = claim.batch.messages[claim.batch.messages.length - 1];
      if (ok && last !== undefined) this.deferred?.handled(claim.batch.topic, claim.batch.partition, last.offset);
      if (ok) this.backoff.reset();
      else if (this.state === 'running') await this.backoff.wait(this.leaving.signal);
    }
  }

  private async handle(claim: Claim): Promise<boolean> {
    const { batch } = claim;
    try {
      await runStep(this.step, batch);
      if (!this.isStopped()) this.options.metrics.consumed(batch.topic, this.groupId, batch.messages.length);
      return true;
    } catch {
      // Logged by the step runner; the batch is redelivered after the backoff.
      this.options.metrics.handlerError(batch.topic, this.groupId);
      return false;
    }
  }
}
