import type { Entitlement } from '../accounts/plans.ts';
import type { HitResult } from './counter.ts';
import { minuteWindow, monthWindow, secondsUntil, unixSeconds } from './windows.ts';

export interface LimitState {
  /** Per-minute cap in force (null = unlimited); lower than the plan's in fallback. */
  readonly limit: number | null;
  readonly remaining: number | null;
  /** Unix seconds when the minute window ends. */
  readonly reset: number;
}

export interface LimitDecision {
  readonly allowed: boolean;
  readonly reason: 'burst' | 'quota' | null;
  readonly fallback: boolean;
  readonly burst: LimitState;
  readonly quota: LimitState;
  /** Seconds until the limiting window ends (429 only). */
  readonly retryAfterSeconds: number | null;
  readonly month: number;
}

/** The limiter's answer for a counted (or refused) request: remaining counts, window resets, Retry-After. */
export function decisionOf(
  now: number,
  ent: Entitlement,
  burstLimit: number | null,
  fallback: boolean,
  result: Exclude<HitResult, { readonly kind: 'missing' }>,
): LimitDecision {
  const minute = minuteWindow(now);
  const month = monthWindow(now);
  const reason = result.kind === 'allowed' ? null : result.kind;
  return {
    allowed: reason === null,
    reason,
    fallback,
    burst: {
      limit: burstLimit,
      remaining: burstLimit === null ? null : Math.max(0, burstLimit - result.minuteCount),
      reset: unixSeconds(minute.end),
    },
    quota: {
      limit: ent.monthlyQuota,
      remaining: ent.monthlyQuota === null ? null : Math.max(0, ent.monthlyQuota - result.monthCount),
      reset: unixSeconds(month.end),
    },
    retryAfterSeconds: reason === 'burst' ? secondsUntil(now, minute.end) : reason === 'quota' ? secondsUntil(now, month.end) : null,
    month: month.month,
  };
}
