import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { AccountCache } from '../accounts/cache.ts';
import { entitlementOf } from '../accounts/plans.ts';
import type { ApiConfig } from '../config.ts';
import { ApiError } from '../errors.ts';

export function isPublic(request: FastifyRequest): boolean {
  return request.is404 || request.routeOptions.config.public === true;
}

/**
 * X-API-Key authentication (401) then entitlement (403): the user's subscription must be `active` and the
 * plan must map to an API level. Sets request.account and request.entitlement.
 */
export const authPlugin = fp<{ readonly accounts: AccountCache; readonly config: ApiConfig }>(
  async (app, { accounts, config }) => {
    app.decorateRequest('account', null);
    app.decorateRequest('entitlement', null);
    app.addHook('onRequest', async (request) => {
      if (isPublic(request)) return;
      const header = request.headers['x-api-key'];
      if (Array.isArray(header)) throw new ApiError('UNAUTHORIZED', 'invalid API key');
      const result = await accounts.authenticate(header);
      if (!result.ok) {
        throw new ApiError('UNAUTHORIZED', result.reason === 'missing' ? 'missing X-API-Key header' : 'invalid API key');
      }
      request.account = result.account;
      if (result.account.status !== 'active') {
        throw new ApiError('FORBIDDEN', `API access requires an active subscription (status: ${result.account.status})`);
      }
      const ent = entitlementOf(config, result.account.plan);
      if (ent === undefined) throw new ApiError('FORBIDDEN', `plan ${result.account.plan} does not include API access`);
      request.entitlement = ent;
    });
  },
  { name: 'gex-auth' },
);
