import type { SubscribeOptions } from './types.ts';
import { waitDelay } from '#platform/steps/retry-policy.ts';

export type CommitGate = NonNullable<SubscribeOptions['commitGate']>;

/** Commits `next` (the offset after the last handled message) for a partition; throws when the commit failed. */
export type CommitOffset = (topic: string, partition: number, next: bigint) => Promise<void>;

/** Pause before a failed commit is tried again (the broker is away or the group is rebalancing). */
export const COMMIT_RETRY_MS = 500;

interface PartitionCommits {
  readonly topic: string;
  readonly partition: number;
  /** Offset after the newest handled message. */
  target: bigint;
  /** Offset after the newest message this member committed (-1: none yet since it got the partition). */
  committed: bigint;
  worker: Promise<void> | null;
  readonly abort: AbortController;
}

/**
 * The deferred commits of one consumer-group member (SubscribeOptions.commitGate): per partition, the newest handled
 * offset waits for the gate, then is committed; one gate question and one commit at a time per partition, so commits
 * only move forward and a commit covers every batch handled before it. Shared by both bus implementations.
 */
export class DeferredCommits {
  private readonly partitions = new Map<string, PartitionCommits>();

  constructor(
    private readonly gate: CommitGate,
    private readonly commit: CommitOffset,
    /** A commit that failed (it is retried after COMMIT_RETRY_MS while the partition is owned). */
    private readonly onCommitError: (err: unknown, topic: string, partition: number) => void,
    private readonly retryMs: number = COMMIT_RETRY_MS,
  ) {}

  /** The handler resolved a batch of (topic, partition) ending at `lastOffset`. */
  handled(topic: string, partition: number, lastOffset: string): void {
    const key = `${topic}\u0000${partition}`;
    let p = this.partitions.get(key);
    if (p === undefined) {
      p = { topic, partition, target: -1n, committed: -1n, worker: null, abort: new AbortController() };
      this.partitions.set(key, p);
    }
    const next = BigInt(lastOffset) + 1n;
    if (next > p.target) p.target = next;
    if (p.worker === null) p.worker = this.work(p);
  }

  /**
   * After a (re)join: partitions not in `owned` drop their pending commits (their gates are aborted), the owned ones
   * forget what they committed, so batches the group redelivers from its committed offsets are committed again.
   */
  retain(owned: readonly { readonly topic: string; readonly partition: number }[]): void {
    const keep = new Set(owned.map((tp) => `${tp.topic}\u0000${tp.partition}`));
    for (const [key, p] of this.partitions) {
      if (keep.has(key)) {
        p.committed = -1n;
        continue;
      }
      p.abort.abort();
      this.partitions.delete(key);
    }
  }

  /** Drops every pending commit (a crash): the gates are aborted, nothing more is committed. */
  abandon(): void {
    for (const p of this.partitions.values()) p.abort.abort();
    this.partitions.clear();
  }

  /** Resolves once no gate or commit is pending (each one committed, rejected or abandoned). */
  async settled(): Promise<void> {
    for (;;) {
      const workers = [...this.partitions.values()].flatMap((p) => (p.worker === null ? [] : [p.worker]));
      if (workers.length === 0) return;
      await Promise.all(workers);
    }
  }

  private async work(p: PartitionCommits): Promise<void> {
    try {
      while (p.target > p.committed && !p.abort.signal.aborted) {
        const target = p.target;
        try {
          await this.gate(p.topic, p.partition, (target - 1n).toString(), p.abort.signal);
        } catch {
          return; // the gate gave up: the offsets stay uncommitted until the next handled batch asks again
        }
        if (!(await this.commitOnce(p, target))) return;
      }
    } finally {
      p.worker = null;
    }
  }

  /** Commits `target`, retrying a failed commit while the partition is owned; false when it was dropped. */
  private async commitOnce(p: PartitionCommits, target: bigint): Promise<boolean> {
    for (;;) {
      if (p.abort.signal.aborted) return false;
      try {
        await this.commit(p.topic, p.partition, target);
        if (target > p.committed) p.committed = target;
        return true;
      } catch (err) {
        if (p.abort.signal.aborted) return false;
        this.onCommitError(err, p.topic, p.partition);
        if (!(await waitDelay(this.retryMs, p.abort.signal))) return false;
      }
    }
  }
}
