import type { ConsumedBatch, SubscribeOptions } from './types.ts';
import type { BusMetrics } from './bus-metrics.ts';
import type { Logger } from '#platform/log.ts';
import { ok, type PipelineStep } from '#platform/steps/step-runner.ts';
import type { RetryPolicy } from '#platform/steps/retry-policy.ts';
import { DeferredCommits, type CommitGate, type CommitOffset } from './deferred-commits.ts';

/** What both consumer implementations (memory and Kafka) are built with. */
export interface ConsumerCommonOptions<Self> {
  readonly topics: readonly string[];
  readonly maxBatchSize: number;
  /** Partitions whose batches may be in the handler at once (SubscribeOptions.partitionsConcurrently). */
  readonly partitionsConcurrently: number;
  /** First redelivery delay ceiling after a handler failure (shared jittered backoff, doubling up to 30x). */
  readonly retryBackoffMs: number;
  readonly eachBatch: (batch: ConsumedBatch) => Promise<void>;
  /** Deferred commits (SubscribeOptions.commitGate). */
  readonly commitGate?: CommitGate;
  readonly onAssignment?: (assigned: readonly { topic: string; partition: number }[]) => void;
  readonly metrics: BusMetrics;
  readonly log: Logger;
  /** Called once the member has left its group. */
  readonly onClosed: (consumer: Self) => void;
}

/** Redelivery backoff of a consumer: the shared policy from `retryBackoffMs`, capped at 30 times it. */
export function redeliveryPolicy(retryBackoffMs: number): RetryPolicy {
  return { baseMs: retryBackoffMs, maxMs: retryBackoffMs * 30 };
}

/**
 * The batch handler as a pipeline step ('bus.consume'): timed and logged by the step runner. A throw is final
 * for the step ('fail'): the consumer redelivers the batch after its backoff instead of retrying in place.
 */
export function handlerStep(
  eachBatch: (batch: ConsumedBatch) => Promise<void>,
  groupId: string,
  log: Logger,
): PipelineStep<ConsumedBatch, void> {
  return {
    name: 'bus.consume',
    log,
    classify: () => 'fail',
    context: (b) => ({ topic: b.topic, partition: b.partition, group: groupId, offset: b.messages[0]?.offset }),
    run: async (b) => ok(await eachBatch(b)),
  };
}

/**
 * The options both buses derive the same way from a subscription: topics, handler, assignment hook, metrics, log,
 * and the close hook that stops the lag tracking and forgets the member.
 */
export function commonConsumerOptions<Self>(
  sub: SubscribeOptions,
  sizes: { readonly maxBatchSize: number; readonly retryBackoffMs: number },
  owner: { readonly metrics: BusMetrics; readonly log: Logger; readonly consumers: Set<Self> },
  untrack: () => void,
): ConsumerCommonOptions<Self> {
  return {
    topics: [...sub.topics],
    maxBatchSize: sizes.maxBatchSize,
    partitionsConcurrently: Math.max(1, Math.floor(sub.partitionsConcurrently ?? 1)),
    retryBackoffMs: sizes.retryBackoffMs,
    eachBatch: sub.eachBatch,
    ...(sub.commitGate ? { commitGate: sub.commitGate } : {}),
    ...(sub.onAssignment ? { onAssignment: sub.onAssignment } : {}),
    metrics: owner.metrics,
    log: owner.log,
    onClosed: (c) => {
      untrack();
      owner.consumers.delete(c);
    },
  };
}

/**
 * The member's deferred commits (null without a commitGate): a failed commit counts in gex_bus_commit_errors_total
 * and is logged (the first and every 20th of the member: a broker outage fails one every COMMIT_RETRY_MS).
 */
export function deferredCommitsOf<Self>(o: ConsumerCommonOptions<Self>, groupId: string, commit: CommitOffset): DeferredCommits | null {
  if (o.commitGate === undefined) return null;
  let failures = 0;
  return new DeferredCommits(o.commitGate, commit, (err, topic, partition) => {
    o.metrics.commitError(topic, groupId);
    if (failures++ % 20 === 0) o.log.warn({ err, group: groupId, topic, partition, failures }, 'deferred commit failed; retrying');
  });
}
