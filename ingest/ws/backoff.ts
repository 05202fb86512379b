/** Reconnect / retry delays: exponential growth capped at `maxMs`, with AWS-style "full jitter". Pure. */

export interface BackoffOptions {
  /** Delay ceiling of the first retry, ms. */
  readonly baseMs: number;
  /** Upper bound of every delay, ms. */
  readonly maxMs: number;
  /** A connection that stayed up this long resets the attempt counter (ResilientSocket only). */
  readonly resetAfterMs?: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 500, maxMs: 30_000, resetAfterMs: 60_000 };

/** Ceiling of the delay before retry number `attempt` (0-based): min(maxMs, baseMs * 2^attempt). */
export function backoffCeiling(attempt: number, opts: BackoffOptions): number {
  const exp = Math.min(Math.max(0, Math.floor(attempt)), 30);
  return Math.min(opts.maxMs, opts.baseMs * 2 ** exp);
}

/** Full jitter: uniform in [0, ceiling). `random` must return values in [0, 1). */
export function backoffDelay(attempt: number, opts: BackoffOptions, random: () => number = Math.random): number {
  return Math.floor(random() * backoffCeiling(attempt, opts));
}
