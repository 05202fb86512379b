import { test } from 'node:test';
import assert from 'node:assert/strict';
import { migratedStore, testApp, userWithKey } from './testing/harness.ts';

test('smoke', async () => {
  const t = await migratedStore();
  const key = await userWithKey(t.store, { userId: 'u1', plan: 'api_monthly' });
  const app = await testApp(t.store);
  for (const url of ['/v2/health', '/v2/meta', '/v2/endpoints', '/v2/changelog', '/v2/symbols', '/v2/expiries?symbol=FOO&max_dte=x', '/v2/status', '/v2/nope', '/v2/openapi.json', '/v2/docs', '/v2/redoc']) {
    const res = await app.inject({ url, headers: { 'x-api-key': key } });
    console.log(url, res.statusCode, JSON.stringify(res.headers).slice(0, 400), res.body.slice(0, 600));
  }
  await app.close();
  await t.dispose();
  assert.ok(true);
});
