/**
 * Durability watermarks from another consumer group's commits (the raw writer's): an event is durable in
 * ClickHouse once that group committed past its offset, because the raw writer commits only after the insert.
 */
import type { Bus } from '#bus/types.ts';
import { withDeadline } from '#platform/deadline.ts';
import { waitDelay } from '#platform/steps/retry-policy.ts';

export class AbortedError extends Error {
  constructor() {
    super('aborted');
    this.name = 'AbortedError';
  }
}

/** Called with every failed offset look-up (broker down, coordinator moving): the wait goes on. */
export type LookupFailed = (err: unknown) => void;

/** Pause after a failed look-up before the next try (the broker is down or electing a coordinator). */
export const LOOKUP_RETRY_MS = 500;

/**
 * Least time left in a drain wait (waitDrained) to start another look-up: a shorter one cannot be answered, it only
 * adds a failure ("timed out after 1 ms") to the counts. The wait's first look-up is always made.
 */
export const MIN_LOOKUP_MS = 50;

/**
 * The group's committed and end offsets of a topic, or null when the broker could not answer (within `timeoutMs` when
 * given: KafkaJS retries a refused connection 8 times, backing off up to 5 s (~15-25 s), so a restarting broker holds it).
 */
async function lagOrNull(bus: Bus, groupId: string, topic: string, onError: LookupFailed | undefined, timeoutMs?: number) {
  try {
    const lag = bus.lag(groupId, topic);
    return await (timeoutMs === undefined ? lag : withDeadline(lag, Math.max(1, timeoutMs)));
  } catch (err) {
    onError?.(err);
    return null;
  }
}

interface PastWaiter {
  readonly partition: number;
  readonly target: bigint;
  readonly resolve: () => void;
  readonly abort: () => void;
}

/**
 * Another group's commits, watched for waiters: `waitPast` resolves once `groupId` committed past an offset. One
 * look-up loop per topic runs while someone waits on it (every `pollMs`; LOOKUP_RETRY_MS after a failed look-up,
 * reported to `onError`), however many partitions wait: the gates of a consumer's partitions share it. `stop` ends
 * every wait, present and future, with AbortedError (one listener for the watch, not one per wait).
 */
export class CommittedOffsetsWatch {
  private readonly waiters = new Map<string, Set<PastWaiter>>();

  constructor(
    private readonly bus: Bus,
    private readonly groupId: string,
    private readonly stop: AbortSignal,
    private readonly pollMs = 25,
    private readonly onError?: (err: unknown, topic: string) => void,
  ) {
    stop.addEventListener(
      'abort',
      () => {
        for (const set of this.waiters.values()) for (const w of set) w.abort();
      },
      { once: true },
    );
  }

  /** Resolves once the group committed past `offset` on (topic, partition); throws AbortedError when aborted or stopped. */
  waitPast(topic: string, partition: number, offset: string, signal: AbortSignal): Promise<void> {
    if (signal.aborted || this.stop.aborted) return Promise.reject(new AbortedError());
    return new Promise<void>((resolve, reject) => {
      let set = this.waiters.get(topic);
      const first = set === undefined;
      if (set === undefined) this.waiters.set(topic, (set = new Set()));
      const onAbort = (): void => {
        signal.removeEventListener('abort', onAbort);
        set.delete(waiter);
        reject(new AbortedError());
      };
      const waiter: PastWaiter = {
        partition,
        target: BigInt(offset),
        resolve: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
        abort: onAbort,
      };
      signal.addEventListener('abort', onAbort, { once: true });
      set.add(waiter);
      if (first) void this.watch(topic, set);
    });
  }

  private async watch(topic: string, set: Set<PastWaiter>): Promise<void> {
    try {
      while (set.size > 0) {
        const lag = await lagOrNull(this.bus, this.groupId, topic, this.onError && ((err) => this.onError?.(err, topic)));
        if (lag !== null) {
          for (const w of set) {
            const p = lag.find((x) => x.partition === w.partition);
            if (p !== undefined && BigInt(p.committed) > w.target) {
              set.delete(w);
              w.resolve();
            }
          }
        }
        if (set.size > 0) await waitDelay(lag === null ? LOOKUP_RETRY_MS : this.pollMs);
      }
    } finally {
      this.waiters.delete(topic);
    }
  }
}

/**
 * Waits until `groupId` has committed everything published on `topics` up to now (the log ends read at the
 * first successful look-up of each topic). Returns false when `timeoutMs` passed first (the caller proceeds and
 * logs), true when drained. A failed look-up (any broker error) is reported to `onError` and retried until the
 * deadline: a broker outage ends the wait unconfirmed (false), never with an exception. A look-up still unanswered at
 * the deadline (KafkaJS retrying while the broker restarts) is abandoned and reported too: the wait never outlasts
 * `timeoutMs` (+ one event-loop turn). After the first look-up none is started with less than MIN_LOOKUP_MS left: the
 * wait ends unconfirmed instead.
 */
export async function waitDrained(
  bus: Bus,
  groupId: string,
  topics: readonly string[],
  timeoutMs: number,
  signal: AbortSignal,
  pollMs = 25,
  onError?: LookupFailed,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  const ends = new Map<string, readonly { partition: number; end: bigint }[]>();
  let lookups = 0;
  for (;;) {
    let done = true;
    let failed = false;
    for (const topic of topics) {
      const left = deadline - Date.now();
      if (lookups++ > 0 && left < MIN_LOOKUP_MS) return false;
      const lag = await lagOrNull(bus, groupId, topic, onError, left);
      if (lag === null) {
        failed = true;
        done = false;
        continue;
      }
      let targets = ends.get(topic);
      if (targets === undefined) ends.set(topic, (targets = lag.map((p) => ({ partition: p.partition, end: BigInt(p.end) }))));
      for (const t of targets) {
        if (t.end === 0n) continue;
        const p = lag.find((x) => x.partition === t.partition);
        if (p === undefined || BigInt(p.committed) < t.end) done = false;
      }
    }
    if (done) return true;
    if (signal.aborted || Date.now() >= deadline) return false;
    await waitDelay(failed ? Math.min(LOOKUP_RETRY_MS, Math.max(1, deadline - Date.now())) : pollMs, signal);
  }
}
