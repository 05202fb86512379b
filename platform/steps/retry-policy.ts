/**
 * The one retry policy of the product: exponential growth capped at `maxMs`, with AWS-style "full jitter"
 * (delay uniform in [0, min(maxMs, baseMs * 2^attempt))), an optional attempt limit, and an abortable wait.
 * Every retry and reconnect (bus publish, consumer redelivery, raw inserts, snapshot cycles, WebSocket reconnects,
 * REST retries) takes its delays from here.
 */

export interface RetryPolicy {
  /** Delay ceiling of the first retry, ms. */
  readonly baseMs: number;
  /** Upper bound of every delay, ms. */
  readonly maxMs: number;
  /** Attempts in all (first try included) before a retryable failure becomes final. Default: unlimited. */
  readonly maxAttempts?: number;
}

/** A source of uniform numbers in [0, 1); injected for deterministic tests. */
export type RandomSource = () => number;

/** Ceiling of the delay before retry number `attempt` (0-based): min(maxMs, baseMs * 2^attempt). */
export function retryCeiling(attempt: number, policy: RetryPolicy): number {
  const exp = Math.min(Math.max(0, Math.floor(attempt)), 30);
  return Math.min(policy.maxMs, policy.baseMs * 2 ** exp);
}

/** Full jitter: an integer uniform in [0, ceiling). `random` must return values in [0, 1). */
export function retryDelay(attempt: number, policy: RetryPolicy, random: RandomSource = Math.random): number {
  return Math.floor(random() * retryCeiling(attempt, policy));
}

/** True while `attempts` tries so far leave room for another under the policy. */
export function mayRetry(attempts: number, policy: RetryPolicy): boolean {
  return attempts < (policy.maxAttempts ?? Number.POSITIVE_INFINITY);
}

/** Waits `ms`; an abort ends the wait at once. Resolves true when the full delay passed, false when aborted. */
export function waitDelay(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (full: boolean): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(full);
    };
    const onAbort = (): void => done(false);
    const timer = setTimeout(() => done(true), Math.max(0, ms));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Consecutive-failure counter over a policy, for loops that retry by redelivery (bus consumers) or reconnect
 * (sockets): `next()` is the delay before the next try, `reset()` after a success.
 */
export class Backoff {
  #attempt = 0;

  constructor(
    readonly policy: RetryPolicy,
    private readonly random: RandomSource = Math.random,
  ) {}

  /** Failures since the last reset. */
  get attempt(): number {
    return this.#attempt;
  }

  /** The jittered delay before the next try; counts one more failure. */
  next(): number {
    return retryDelay(this.#attempt++, this.policy, this.random);
  }

  reset(): void {
    this.#attempt = 0;
  }

  /** `next()` then wait it out (abortable). */
  wait(signal?: AbortSignal): Promise<boolean> {
    return waitDelay(this.next(), signal);
  }
}
