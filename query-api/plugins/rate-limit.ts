import type { FastifyContextConfig, FastifyReply } from 'fastify';
import { ApiError } from '../envelope/errors.ts';
import type { IpLimiter, LimitDecision, RateLimiter } from '../limits/limiter.ts';
import type { GateStep } from './auth.ts';

const num = (v: number | null): string => (v === null ? 'unlimited' : String(v));

/** The X-RateLimit-* (and X-Quota-*) headers of a decision, set in one call (names as Fastify stores them). */
export function setLimitHeaders(reply: FastifyReply, d: LimitDecision, withQuota: boolean): void {
  const burst = d.burst;
  if (withQuota) {
    const quota = d.quota;
    reply.headers({
      'x-ratelimit-limit': num(burst.limit),
      'x-ratelimit-remaining': num(burst.remaining),
      'x-ratelimit-reset': String(burst.reset),
      'x-quota-limit': num(quota.limit),
      'x-quota-remaining': num(quota.remaining),
      'x-quota-reset': String(quota.reset),
    });
  } else {
    reply.headers({
      'x-ratelimit-limit': num(burst.limit),
      'x-ratelimit-remaining': num(burst.remaining),
      'x-ratelimit-reset': String(burst.reset),
    });
  }
  if (d.fallback) reply.header('x-ratelimit-fallback', 'true');
}

function rejection(d: LimitDecision): ApiError {
  const retry = d.retryAfterSeconds ?? 1;
  const quota = d.reason === 'quota';
  const limit = quota ? `${d.quota.limit ?? 'unlimited'}/month` : `${d.burst.limit ?? 'unlimited'}/minute`;
  return new ApiError(
    'RATE_LIMIT_EXCEEDED',
    quota ? 'monthly request quota exhausted' : 'per-minute request limit exceeded',
    { retry_after_seconds: retry, limit },
    { 'Retry-After': String(retry) },
  );
}

/** Units a request costs: the route's quotaUnits (clamped to >= 1) or 1. */
function unitsOf(fn: ((q: unknown) => number) | undefined, query: unknown): number {
  if (fn === undefined) return 1;
  const n = fn(query);
  return Number.isFinite(n) && n >= 1 ? Math.floor(n) : 1;
}

/**
 * Per-user burst + monthly quota (after auth), per-IP limit on ipLimited routes; headers on every
 * authenticated response; 429 with Retry-After. Every authenticated request is counted, including ones that
 * then fail validation. Synchronous when the limiter can answer without I/O (RateLimiter.checkLocal).
 */
export function limitStep(limiter: RateLimiter, ipLimiter: IpLimiter): GateStep<[FastifyReply, FastifyContextConfig]> {
  const apply = (request: Parameters<GateStep<[]>>[0], reply: FastifyReply, d: LimitDecision): void => {
    request.limits = d;
    setLimitHeaders(reply, d, true);
    if (!d.allowed) throw rejection(d);
  };
  return (request, reply, config) => {
    if (config.ipLimited === true) {
      const d = ipLimiter.check(request.ip);
      setLimitHeaders(reply, d, false);
      if (!d.allowed) throw rejection(d);
      return undefined;
    }
    const account = request.account;
    const ent = request.entitlement;
    if (account === null || ent === null) return undefined;
    const units = unitsOf(config.quotaUnits, request.query);
    const known = limiter.checkLocal(account.userId, ent, units);
    if (known !== undefined) {
      apply(request, reply, known);
      return undefined;
    }
    return limiter.check(account.userId, ent, units).then((d) => apply(request, reply, d));
  };
}
