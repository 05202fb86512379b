import type { FastifyRequest } from 'fastify';
import type { AccountCache, AuthResult } from '../accounts/cache.ts';
import { entitlementOf, type Entitlement } from '../accounts/plans.ts';
import type { ApiConfig } from '../config.ts';
import { ApiError } from '../envelope/errors.ts';

/** One step of the request gate: done at once (undefined) or a promise when it has to wait. */
export type GateStep<A extends unknown[]> = (request: FastifyRequest, ...args: A) => Promise<void> | undefined;

/**
 * X-API-Key authentication (401) then entitlement (403): the user's subscription must be `active` and the
 * plan must map to an API level. Sets request.account and request.entitlement. Synchronous when the key's
 * answer is known to the account cache (see AccountCache.cached).
 */
export function authStep(accounts: AccountCache, config: ApiConfig): GateStep<[]> {
  // Entitlements depend on the plan and the (fixed) config only.
  const byPlan = new Map<string, Entitlement | undefined>();
  const entitlement = (plan: string): Entitlement | undefined => {
    if (!byPlan.has(plan)) byPlan.set(plan, entitlementOf(config, plan));
    return byPlan.get(plan);
  };
  const apply = (request: FastifyRequest, result: AuthResult): void => {
    if (!result.ok) {
      throw new ApiError('UNAUTHORIZED', result.reason === 'missing' ? 'missing X-API-Key header' : 'invalid API key');
    }
    request.account = result.account;
    if (result.account.status !== 'active') {
      throw new ApiError('FORBIDDEN', `API access requires an active subscription (status: ${result.account.status})`);
    }
    const ent = entitlement(result.account.plan);
    if (ent === undefined) throw new ApiError('FORBIDDEN', `plan ${result.account.plan} does not include API access`);
    request.entitlement = ent;
  };
  return (request) => {
    const header = request.headers['x-api-key'];
    if (Array.isArray(header)) throw new ApiError('UNAUTHORIZED', 'invalid API key');
    const known = accounts.cached(header);
    if (known !== undefined) {
      apply(request, known);
      return undefined;
    }
    return accounts.authenticate(header).then((result) => apply(request, result));
  };
}
