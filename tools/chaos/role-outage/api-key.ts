/**
 * An enterprise user and its API key, through a running API's loopback admin endpoint (what `gex users upsert` and
 * `gex keys create` do, without starting a CLI process each: four process starts cost minutes on a loaded machine).
 * A call that times out (10 s) while the machine is busy starting the roles is tried again, up to 4 times.
 */
import { callRunningApi } from '#query-api/admin/client.ts';
import { tokenFile } from '#query-api/admin/token.ts';
import type { AdminCall } from '#query-api/admin/operations.ts';

async function call(adminPort: number, dataDir: string, c: AdminCall, attempts = 4): Promise<Record<string, unknown>> {
  for (let i = 1; ; i++) {
    try {
      const r = await callRunningApi(adminPort, tokenFile(dataDir), c);
      if (r === undefined) throw new Error(`no API answers on admin port ${adminPort}`);
      return r;
    } catch (err) {
      if (i >= attempts) throw err;
      await new Promise((r) => setTimeout(r, 3_000));
    }
  }
}

export async function createApiKey(adminPort: number, dataDir: string, userId = 'outage'): Promise<string> {
  await call(adminPort, dataDir, { op: 'users.upsert', input: { user_id: userId, plan: 'enterprise', status: 'active' } });
  const key = (await call(adminPort, dataDir, { op: 'keys.create', input: { user_id: userId } }))['key'];
  if (typeof key !== 'string' || key.length < 10) throw new Error(`keys.create answered no key: ${JSON.stringify(key)}`);
  return key;
}
