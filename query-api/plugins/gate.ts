import type { FastifyError } from 'fastify';
import fp from 'fastify-plugin';
import type { AccountCache } from '../accounts/cache.ts';
import type { ApiConfig } from '../config.ts';
import type { IpLimiter, RateLimiter } from '../limits/limiter.ts';
import { authStep } from './auth.ts';
import { limitStep } from './rate-limit.ts';

export interface GateOptions {
  readonly accounts: AccountCache;
  readonly config: ApiConfig;
  readonly limiter: RateLimiter;
  readonly ipLimiter: IpLimiter;
}

/**
 * The one onRequest hook of the API, in this order: X-Request-ID on every response (meta.request_id carries
 * the same value); then, on matched routes, API-key auth + entitlement unless the route is public; then the
 * per-IP limit (ipLimited routes) or the per-user burst + quota. Callback style: a request whose key and
 * counters are known in memory passes without a promise; anything that has to wait continues asynchronously.
 */
export const gatePlugin = fp<GateOptions>(
  async (app, { accounts, config, limiter, ipLimiter }) => {
    app.decorateRequest('account', null);
    app.decorateRequest('entitlement', null);
    app.decorateRequest('limits', null);
    const auth = authStep(accounts, config);
    const limit = limitStep(limiter, ipLimiter);
    const fail = (done: (err?: FastifyError) => void) => (err: unknown) => done(err as FastifyError);
    app.addHook('onRequest', (request, reply, done) => {
      reply.header('x-request-id', request.id);
      if (request.is404) return done();
      const route = request.routeOptions.config;
      let pending: Promise<void> | undefined;
      try {
        pending = route.public === true ? undefined : auth(request);
        pending = pending === undefined ? limit(request, reply, route) : pending.then(() => limit(request, reply, route));
      } catch (err) {
        return fail(done)(err);
      }
      if (pending === undefined) return done();
      pending.then(() => done(), fail(done));
    });
  },
  { name: 'gex-gate' },
);
