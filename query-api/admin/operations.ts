import { z } from 'zod';
import { PLAN_NAMES, STATUSES } from '../accounts/plans.ts';
import type { AccountsRepository, KeyRecord } from '../accounts/repository.ts';

/** Operator actions on accounts, shared by the admin endpoint and the CLI's direct-store fallback. */

const userId = z.string().regex(/^[A-Za-z0-9._@:+-]{1,128}$/, { error: 'user id: 1-128 of A-Z a-z 0-9 . _ @ : + -' });

export const upsertUserInput = z.object({
  user_id: userId,
  plan: z.enum(PLAN_NAMES as [string, ...string[]], { error: `plan: one of ${PLAN_NAMES.join(', ')}` }),
  status: z.enum(STATUSES, { error: `status: one of ${STATUSES.join(', ')}` }),
  evaluation: z.boolean().default(false),
});
export const createKeyInput = z.object({ user_id: userId });
export const revokeKeyInput = z.object({ key: z.string().min(1).max(256) });
export const listKeysInput = z.object({ user_id: userId });

/** One operator action; `input` is untrusted (from HTTP or the command line) and validated with zod. */
export interface AdminCall {
  readonly op: 'users.upsert' | 'keys.create' | 'keys.revoke' | 'keys.list';
  readonly input: unknown;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
const keyView = (k: KeyRecord) => ({ key_id: k.keyId, user_id: k.userId, created_at: iso(k.createdAt), revoked_at: iso(k.revokedAt) });

/**
 * Runs one operator action. `changed` is called after a write (the running API reloads its account cache
 * so the change applies at once).
 */
export async function runAdminCall(
  repo: AccountsRepository,
  keyPrefix: string,
  call: AdminCall,
  changed: () => Promise<void> = async () => undefined,
): Promise<Record<string, unknown>> {
  switch (call.op) {
    case 'users.upsert': {
      const i = upsertUserInput.parse(call.input);
      const u = await repo.upsertUser({ userId: i.user_id, plan: i.plan, status: i.status, evaluation: i.evaluation });
      await changed();
      return { user_id: u.userId, plan: u.plan, status: u.status, evaluation: u.evaluation, updated_at: iso(u.updatedAt) };
    }
    case 'keys.create': {
      const i = createKeyInput.parse(call.input);
      const k = await repo.createKey(i.user_id, keyPrefix);
      await changed();
      return { key: k.key, key_id: k.keyId, user_id: k.userId, created_at: iso(k.createdAt) };
    }
    case 'keys.revoke': {
      const i = revokeKeyInput.parse(call.input);
      const k = await repo.revokeKey(i.key);
      await changed();
      return keyView(k);
    }
    case 'keys.list': {
      const i = listKeysInput.parse(call.input);
      return { user_id: i.user_id, keys: (await repo.listKeys(i.user_id)).map(keyView) };
    }
  }
}
