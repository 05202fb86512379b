import type { FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../errors.ts';
import type { IpLimiter, LimitDecision, RateLimiter } from '../limits/limiter.ts';

const num = (v: number | null): string => (v === null ? 'unlimited' : String(v));

export function setLimitHeaders(reply: FastifyReply, d: LimitDecision, withQuota: boolean): void {
  reply.header('X-RateLimit-Limit', num(d.burst.limit));
  reply.header('X-RateLimit-Remaining', num(d.burst.remaining));
  reply.header('X-RateLimit-Reset', String(d.burst.reset));
  if (withQuota) {
    reply.header('X-Quota-Limit', num(d.quota.limit));
    reply.header('X-Quota-Remaining', num(d.quota.remaining));
    reply.header('X-Quota-Reset', String(d.quota.reset));
  }
  if (d.fallback) reply.header('X-RateLimit-Fallback', 'true');
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
 * then fail validation.
 */
export const rateLimitPlugin = fp<{ readonly limiter: RateLimiter; readonly ipLimiter: IpLimiter }>(
  async (app, { limiter, ipLimiter }) => {
    app.decorateRequest('limits', null);
    app.addHook('onRequest', async (request, reply) => {
      const config = request.routeOptions.config;
      if (!request.is404 && config.ipLimited === true) {
        const d = ipLimiter.check(request.ip);
        setLimitHeaders(reply, d, false);
        if (!d.allowed) throw rejection(d);
        return;
      }
      const account = request.account;
      const ent = request.entitlement;
      if (account === null || ent === null) return;
      const d = await limiter.check(account.userId, ent, unitsOf(config.quotaUnits, request.query));
      request.limits = d;
      setLimitHeaders(reply, d, true);
      if (!d.allowed) throw rejection(d);
    });
  },
  { name: 'gex-rate-limit' },
);
