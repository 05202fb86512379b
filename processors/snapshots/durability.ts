/**
 * Durability watermarks from another consumer group's commits (the raw writer's): an event is durable in
 * ClickHouse once that group committed past its offset, because the raw writer commits only after the insert.
 */
import type { Bus } from '#bus/types.ts';
import { waitDelay } from '#platform/steps/retry-policy.ts';

export class AbortedError extends Error {
  constructor() {
    super('aborted');
    this.name = 'AbortedError';
  }
}

/** Resolves once `groupId` committed past `offset` on (topic, partition); throws AbortedError when aborted. */
export async function waitCommittedPast(
  bus: Bus,
  groupId: string,
  topic: string,
  partition: number,
  offset: string,
  signal: AbortSignal,
  pollMs = 25,
): Promise<void> {
  const target = BigInt(offset);
  for (;;) {
    const p = (await bus.lag(groupId, topic)).find((x) => x.partition === partition);
    if (p !== undefined && BigInt(p.committed) > target) return;
    if (signal.aborted) throw new AbortedError();
    await waitDelay(pollMs, signal);
  }
}

/**
 * Waits until `groupId` has committed everything published on `topics` up to now (the log ends read at the
 * call). Returns false when `timeoutMs` passed first (the caller proceeds and logs), true when drained.
 */
export async function waitDrained(
  bus: Bus,
  groupId: string,
  topics: readonly string[],
  timeoutMs: number,
  signal: AbortSignal,
  pollMs = 25,
): Promise<boolean> {
  const targets: { topic: string; partition: number; end: bigint }[] = [];
  for (const topic of topics)
    for (const p of await bus.lag(groupId, topic)) targets.push({ topic, partition: p.partition, end: BigInt(p.end) });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let done = true;
    for (const topic of topics) {
      const lag = await bus.lag(groupId, topic);
      for (const t of targets) {
        if (t.topic !== topic || t.end === 0n) continue;
        const p = lag.find((x) => x.partition === t.partition);
        if (p === undefined || BigInt(p.committed) < t.end) done = false;
      }
    }
    if (done) return true;
    if (signal.aborted || Date.now() >= deadline) return false;
    await waitDelay(pollMs, signal);
  }
}
