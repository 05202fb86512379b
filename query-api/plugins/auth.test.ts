import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AccountsRepository } from '../accounts/repository.ts';
import { assertError, assertOk } from '../testing/assertions.ts';
import { migratedStore, testApp, testClock, userWithKey } from '../testing/harness.ts';
import type { ApiInstance } from '../types.ts';
import type { Store } from '#clickhouse/store.ts';

const NOW = Date.UTC(2026, 9, 15, 12, 0, 30);

describe('API keys, entitlement, request id, error envelope', () => {
  let t: Awaited<ReturnType<typeof migratedStore>>;
  let store: Store;
  let app: ApiInstance;
  const clock = testClock(NOW);

  before(async () => {
    t = await migratedStore();
    store = t.store;
    app = await testApp(store, { accountsRefreshMs: 10_000 }, { clock });
  });
  after(async () => {
    await app.close();
    await t.dispose();
  });

  test('missing key, malformed key, unknown key: 401 without limit headers', async () => {
    const cases: (Record<string, string> | undefined)[] = [
      undefined,
      { 'x-api-key': '' },
      { 'x-api-key': 'nope' },
      { 'x-api-key': 'gex_live_' + 'A'.repeat(31) },
      { 'x-api-key': 'xyz_live_' + 'A'.repeat(32) },
      { 'x-api-key': 'gex_live_' + 'A'.repeat(32) },
      { 'x-api-key': 'gex_test_' + 'A'.repeat(32) },
    ];
    for (const headers of cases) {
      const res = await app.inject({ url: '/v2/meta', ...(headers ? { headers } : {}) });
      const body = assertError(res, 401, 'UNAUTHORIZED');
      assert.equal(
        body.error.message,
        headers === undefined || headers['x-api-key'] === '' ? 'missing X-API-Key header' : 'invalid API key',
      );
      assert.equal(res.headers['x-ratelimit-limit'], undefined);
    }
  });

  test('a leading or trailing space makes a valid key invalid', async () => {
    const key = await userWithKey(store, { userId: 'spaces', plan: 'api_monthly' });
    await app.gex.accounts.refresh();
    assertOk(await app.inject({ url: '/v2/changelog', headers: { 'x-api-key': key } }));
    for (const v of [` ${key}`, `${key} `, `\t${key}`, `${key}\t`]) {
      assertError(await app.inject({ url: '/v2/changelog', headers: { 'x-api-key': v } }), 401, 'UNAUTHORIZED');
    }
  });

  test('plan x status matrix: only active grants access; limits per plan', async () => {
    const expected: Record<string, [string, string]> = {
      api_monthly: ['60', '100000'],
      api_yearly: ['120', '100000'],
      terminal_yearly: ['30', '10000'],
      bundle_monthly: ['120', '500000'],
      legacy: ['120', '500000'],
      enterprise: ['unlimited', 'unlimited'],
    };
    const keys: [string, string, string][] = [];
    for (const plan of Object.keys(expected)) {
      for (const status of ['active', 'trialing', 'lapsed', 'canceled']) {
        keys.push([plan, status, await userWithKey(store, { userId: `${plan}-${status}`, plan, status })]);
      }
    }
    const bogus = await userWithKey(store, { userId: 'no-plan', plan: 'newsletter' });
    await app.gex.accounts.refresh();
    for (const [plan, status, key] of keys) {
      const res = await app.inject({ url: '/v2/meta', headers: { 'x-api-key': key } });
      if (status === 'active') {
        const { data } = assertOk<{ your_plan: { plan: string; burst_per_minute: number | null } }>(res);
        assert.equal(data.your_plan.plan, plan);
        const [burst, quota] = expected[plan] as [string, string];
        assert.equal(res.headers['x-ratelimit-limit'], burst);
        assert.equal(res.headers['x-quota-limit'], quota);
      } else {
        const body = assertError(res, 403, 'FORBIDDEN');
        assert.match(body.error.message, new RegExp(`status: ${status}`));
        assert.equal(res.headers['x-ratelimit-limit'], undefined);
      }
    }
    assertError(await app.inject({ url: '/v2/meta', headers: { 'x-api-key': bogus } }), 403, 'FORBIDDEN');
  });

  test('revocation takes effect at the next refresh (<= 10 s, within the 30 s bound)', async () => {
    const key = await userWithKey(store, { userId: 'revoke-me', plan: 'api_yearly' });
    await app.gex.accounts.refresh();
    assertOk(await app.inject({ url: '/v2/changelog', headers: { 'x-api-key': key } }));
    await new AccountsRepository(store).revokeKey(key);
    clock.advance(5_000);
    assertOk(await app.inject({ url: '/v2/changelog', headers: { 'x-api-key': key } }));
    clock.advance(5_000);
    assertError(await app.inject({ url: '/v2/changelog', headers: { 'x-api-key': key } }), 401, 'UNAUTHORIZED');
    // A lapsed subscription is picked up the same way.
    const k2 = await userWithKey(store, { userId: 'lapses', plan: 'api_yearly' });
    clock.advance(10_000);
    assertOk(await app.inject({ url: '/v2/changelog', headers: { 'x-api-key': k2 } }));
    await new AccountsRepository(store).upsertUser({ userId: 'lapses', plan: 'api_yearly', status: 'lapsed', evaluation: false });
    clock.advance(10_000);
    assertError(await app.inject({ url: '/v2/changelog', headers: { 'x-api-key': k2 } }), 403, 'FORBIDDEN');
  });

  test('X-Request-ID: a sane client id is echoed, anything else replaced', async () => {
    const key = await userWithKey(store, { userId: 'rid', plan: 'legacy' });
    await app.gex.accounts.refresh();
    const ok = await app.inject({ url: '/v2/changelog', headers: { 'x-api-key': key, 'x-request-id': 'client-42:a.b_c' } });
    assert.equal(ok.headers['x-request-id'], 'client-42:a.b_c');
    assert.equal(assertOk(ok).meta.request_id, 'client-42:a.b_c');
    for (const bad of ['has space', 'x'.repeat(129), '<script>', 'ü']) {
      const res = await app.inject({
        url: '/v2/changelog',
        headers: { 'x-api-key': key, 'x-request-id': encodeURIComponent(bad) === bad ? bad : bad },
      });
      assert.notEqual(res.headers['x-request-id'], bad);
      assert.match(String(res.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    }
    const err = await app.inject({ url: '/v2/meta', headers: { 'x-request-id': 'err-1' } });
    assert.equal(assertError(err, 401, 'UNAUTHORIZED').meta.request_id, 'err-1');
  });

  test('unknown routes and methods: 404 NOT_FOUND envelope', async () => {
    assertError(await app.inject({ url: '/v2/nope' }), 404, 'NOT_FOUND');
    assertError(await app.inject({ url: '/nope?x=1' }), 404, 'NOT_FOUND');
    assertError(await app.inject({ method: 'POST', url: '/v2/meta' }), 404, 'NOT_FOUND');
  });

  test('public routes need no key', async () => {
    for (const url of ['/v2/health', '/v2/openapi.json', '/v2/docs', '/v2/redoc']) {
      const res = await app.inject({ url });
      assert.equal(res.statusCode, 200, url);
    }
  });
});
