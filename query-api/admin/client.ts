import type { Store } from '#clickhouse/store.ts';
import { migrate } from '#clickhouse/migrate.ts';
import { AccountsRepository } from '../accounts/repository.ts';
import { runAdminCall, type AdminCall } from './operations.ts';
import { readToken } from './token.ts';

export class AdminCallError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdminCallError';
  }
}

const PATHS: Readonly<Record<AdminCall['op'], string>> = {
  'users.upsert': '/admin/users/upsert',
  'keys.create': '/admin/keys/create',
  'keys.revoke': '/admin/keys/revoke',
  'keys.list': '/admin/keys/list',
};

function refused(err: unknown): boolean {
  const cause = (err as { cause?: { code?: unknown } } | null)?.cause;
  return typeof cause?.code === 'string' && ['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH'].includes(cause.code);
}

/** Sends the call to a running API's admin endpoint. Resolves undefined when no process answers on the port. */
export async function callRunningApi(port: number, tokenPath: string, call: AdminCall): Promise<Record<string, unknown> | undefined> {
  let res: Response;
  try {
    res = await fetch(`http://127.0.0.1:${port}${PATHS[call.op]}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${readToken(tokenPath) ?? ''}` },
      body: JSON.stringify(call.input),
      signal: AbortSignal.timeout(10_000),
    });
  } catch (err) {
    if (refused(err)) return undefined;
    throw err;
  }
  const body = (await res.json().catch(() => ({}))) as { ok?: boolean; result?: Record<string, unknown>; error?: string };
  if (res.ok && body.ok === true && body.result !== undefined) return body.result;
  throw new AdminCallError(body.error ?? `admin endpoint answered HTTP ${res.status}`);
}

export interface AdminTarget {
  readonly adminPort: number;
  readonly tokenFile: string;
  readonly keyPrefix: string;
  /** Opens the store directly (used only when no API process answers). */
  readonly openStore: () => Promise<Store>;
}

/** The running API's admin endpoint when one answers, else the store directly. */
export async function runAdmin(
  target: AdminTarget,
  call: AdminCall,
): Promise<{ readonly via: 'api' | 'store'; readonly result: Record<string, unknown> }> {
  const remote = await callRunningApi(target.adminPort, target.tokenFile, call);
  if (remote !== undefined) return { via: 'api', result: remote };
  const store = await target.openStore();
  try {
    await migrate(store);
    return { via: 'store', result: await runAdminCall(new AccountsRepository(store), target.keyPrefix, call) };
  } finally {
    await store.close();
  }
}
