import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertError, assertOk } from '../testing/assertions.ts';
import { freePort, migratedStore, testApp } from '../testing/harness.ts';
import type { ApiInstance } from '../types.ts';
import { AdminCallError, callRunningApi, runAdmin, type AdminTarget } from './client.ts';
import { startAdminServer, type AdminServer } from './server.ts';
import { tokenFile } from './token.ts';

describe('admin endpoint (gex users / gex keys against a running API)', () => {
  let t: Awaited<ReturnType<typeof migratedStore>>;
  let app: ApiInstance;
  let admin: AdminServer;
  let target: AdminTarget;
  const dir = mkdtempSync(join(tmpdir(), 'gex-admin-'));

  before(async () => {
    t = await migratedStore();
    app = await testApp(t.store, { accountsRefreshMs: 3_600_000 });
    admin = await startAdminServer({
      repository: app.gex.repository,
      keyPrefix: 'gex',
      changed: () => app.gex.accounts.refresh(),
      port: 0,
      tokenFile: tokenFile(dir),
    });
    target = {
      adminPort: admin.port,
      tokenFile: tokenFile(dir),
      keyPrefix: 'gex',
      openStore: () => Promise.reject(new Error('must not open the store while the API runs')),
    };
  });
  after(async () => {
    await admin.close();
    await app.close();
    await t.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  test('loopback only, token file 0600', () => {
    assert.equal((admin.app.server.address() as { address: string }).address, '127.0.0.1');
    assert.equal(statSync(tokenFile(dir)).mode & 0o777, 0o600);
  });

  test('upsert user, create key (usable at once), list, revoke (refused at once)', async () => {
    const u = await runAdmin(target, {
      op: 'users.upsert',
      input: { user_id: 'ops-1', plan: 'api_monthly', status: 'active', evaluation: true },
    });
    assert.equal(u.via, 'api');
    assert.deepEqual(
      { ...u.result, updated_at: undefined },
      { user_id: 'ops-1', plan: 'api_monthly', status: 'active', evaluation: true, updated_at: undefined },
    );
    const created = await runAdmin(target, { op: 'keys.create', input: { user_id: 'ops-1' } });
    const key = String(created.result.key);
    assert.match(key, /^gex_live_[A-Za-z0-9]{32}$/);
    assert.equal(created.result.key_id, key.slice(9, 17));
    assertOk(await app.inject({ url: '/v2/changelog', headers: { 'x-api-key': key } }));
    const stored = await t.store.query<{ n: string }>(
      'SELECT toString(count()) AS n FROM api_keys WHERE position(key_hash, {k:String}) > 0 OR key_id = {k:String}',
      { k: key },
    );
    assert.equal(stored[0]?.n, '0'); // the key itself is never stored
    const listed = await runAdmin(target, { op: 'keys.list', input: { user_id: 'ops-1' } });
    assert.deepEqual(
      (listed.result.keys as { key_id: string; revoked_at: string | null }[]).map((k) => [k.key_id, k.revoked_at]),
      [[key.slice(9, 17), null]],
    );
    const revoked = await runAdmin(target, { op: 'keys.revoke', input: { key: key.slice(9, 17) } });
    assert.equal(revoked.result.key_id, key.slice(9, 17));
    assertError(await app.inject({ url: '/v2/changelog', headers: { 'x-api-key': key } }), 401, 'UNAUTHORIZED');
    // Status change through the endpoint applies at once too.
    const k2 = String((await runAdmin(target, { op: 'keys.create', input: { user_id: 'ops-1' } })).result.key);
    await runAdmin(target, { op: 'users.upsert', input: { user_id: 'ops-1', plan: 'api_monthly', status: 'trialing' } });
    assertError(await app.inject({ url: '/v2/changelog', headers: { 'x-api-key': k2 } }), 403, 'FORBIDDEN');
  });

  test('bad input, unknown user, bad token', async () => {
    await assert.rejects(runAdmin(target, { op: 'users.upsert', input: { user_id: 'x', plan: 'gold', status: 'active' } }), /plan: one of/);
    await assert.rejects(runAdmin(target, { op: 'keys.create', input: { user_id: 'ghost' } }), /unknown user/);
    await assert.rejects(runAdmin(target, { op: 'keys.revoke', input: { key: 'nope' } }), /no such key/);
    await assert.rejects(
      callRunningApi(admin.port, join(dir, 'missing.token'), { op: 'keys.list', input: { user_id: 'ops-1' } }),
      AdminCallError,
    );
  });

  test('no process on the port: the CLI falls back to the store', async () => {
    assert.equal(await callRunningApi(await freePort(), tokenFile(dir), { op: 'keys.list', input: { user_id: 'ops-1' } }), undefined);
  });
});
