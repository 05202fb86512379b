import { test } from 'node:test';
import assert from 'node:assert/strict';
import { migratedStore, testApp, userWithKey } from './testing/harness.ts';

/** mulberry32: small seeded PRNG, so a failure reproduces. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NAMES = ['symbol', 'symbols', 'venue', 'max_dte', 'exchanges', 'include', 'as_of', 'days', '__proto__', 'constructor', 'a[b]', '', 'limit', 'symbol[]'];
const VALUES = ['BTCUSDT', 'btcusdt', 'ETHUSDT', '', '-1', '0', '3650', '3651', '1e3', '0x10', 'NaN', 'null', '[]', '{}', '%', '%zz', '%00', '%E2%82%AC', '%F0%9F%92%A9', "'; DROP TABLE users; --", '../../etc/passwd', 'x'.repeat(3000), '99999999999999999999', ' BTCUSDT', 'deribit', 'okx,kraken'];
const CHARS = 'abcXYZ019_-.~!*\'();:@&=+$,/?#[]% \t"<>\\^`{|}';

test('fuzz: >= 10,000 random/malformed queries and headers on every route: no 5xx, error envelope on every 4xx', async () => {
  const t = await migratedStore();
  const key = await userWithKey(t.store, { userId: 'fuzz', plan: 'enterprise' });
  const app = await testApp(t.store, { healthPerIpPerMinute: 1_000_000 });
  const routes = app.gex ? ['/v2/health', '/v2/meta', '/v2/endpoints', '/v2/changelog', '/v2/symbols', '/v2/expiries', '/v2/status', '/v2/openapi.json', '/v2/docs', '/v2/redoc', '/v2/nope', '/v2/docs/json'] : [];
  const rnd = prng(20261011);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const randomText = (n: number): string => Array.from({ length: n }, () => pick([...CHARS])).join('');
  const counts = new Map<number, number>();
  const N = 10_000;
  const started = performance.now();
  for (let i = 0; i < N; i++) {
    const parts: string[] = [];
    const n = Math.floor(rnd() * 5);
    for (let j = 0; j < n; j++) {
      const r = rnd();
      if (r < 0.6) parts.push(`${pick(NAMES)}=${pick(VALUES)}`);
      else if (r < 0.8) parts.push(`${pick(NAMES)}=${encodeURIComponent(randomText(1 + Math.floor(rnd() * 20)))}`);
      else parts.push(randomText(1 + Math.floor(rnd() * 12)).replace(/[#\s]/g, ''));
    }
    const url = `${pick(routes)}${n > 0 ? `?${parts.join('&')}` : ''}`;
    const headers: Record<string, string> = {};
    const hr = rnd();
    if (hr < 0.55) headers['x-api-key'] = key;
    else if (hr < 0.65) headers['x-api-key'] = key.slice(0, Math.floor(rnd() * key.length));
    else if (hr < 0.75) headers['x-api-key'] = randomText(40).replace(/[\t"\\]/g, 'x');
    else if (hr < 0.8) headers['x-api-key'] = `${key}x`;
    if (rnd() < 0.3) headers['x-request-id'] = randomText(Math.floor(rnd() * 200)).replace(/[\t"\\]/g, 'y');
    if (rnd() < 0.1) headers.accept = pick(['text/html', '*/*', 'application/xml', '']);
    if (rnd() < 0.05) headers['content-type'] = pick(['application/json', 'text/plain', 'multipart/form-data']);
    const res = await app.inject({ method: rnd() < 0.97 ? 'GET' : pick(['POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS']), url, headers });
    counts.set(res.statusCode, (counts.get(res.statusCode) ?? 0) + 1);
    assert.ok(res.statusCode < 500, `${res.statusCode} for ${url} ${JSON.stringify(headers)}: ${res.body.slice(0, 300)}`);
    if (res.statusCode >= 400 && res.body !== '') {
      const body = res.json<{ success: boolean; error: { code: string; message: string }; meta: { version: string; timestamp: string; request_id: string } }>();
      assert.equal(body.success, false, url);
      assert.equal(typeof body.error.code, 'string');
      assert.equal(typeof body.error.message, 'string');
      assert.equal(body.meta.version, '2.0');
      assert.equal(body.meta.request_id, res.headers['x-request-id']);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  process.stderr.write(`fuzz: ${N} requests in ${seconds.toFixed(1)} s; statuses ${JSON.stringify(Object.fromEntries([...counts].sort()))}\n`);
  assert.ok((counts.get(200) ?? 0) > 1000);
  assert.ok((counts.get(401) ?? 0) > 500);
  assert.ok((counts.get(422) ?? 0) > 100);
  await app.close();
  await t.dispose();
});
