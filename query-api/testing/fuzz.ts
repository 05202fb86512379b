import assert from 'node:assert/strict';
import type { ApiInstance } from '../types.ts';

/**
 * Random / malformed request fuzzing of an app (shared by the fuzz tests). Every GET route registered in the
 * app is covered (`registeredPaths`), plus unknown paths; asserts no 5xx and the error envelope on every 4xx.
 */

/** mulberry32: small seeded PRNG, so a failure reproduces. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every GET path of the app's OpenAPI document (all registered routes with a schema, public ones included). */
export function registeredPaths(app: ApiInstance): string[] {
  const doc = app.swagger() as unknown as { paths: Record<string, Record<string, unknown>> };
  return Object.keys(doc.paths).filter((p) => doc.paths[p]?.['get'] !== undefined).sort();
}

export const FUZZ_NAMES = ['symbol', 'symbols', 'venue', 'max_dte', 'exchanges', 'include', 'as_of', 'positioning', 'expiry', 'days', '__proto__', 'constructor', 'a[b]', '', 'limit', 'symbol[]',
  'asset', 'region', 'asset_class', 'span', 'sort', 'extremes_only', 'ticker', 'id'];
export const FUZZ_VALUES = [
  'BTCUSDT', 'btcusdt', 'ETHUSDT', 'SOLUSDT', '', '-1', '0', '3650', '3651', '1e3', '0x10', 'NaN', 'null', '[]', '{}', '%', '%zz', '%00', '%E2%82%AC',
  '%F0%9F%92%A9', "'; DROP TABLE users; --", '../../etc/passwd', 'x'.repeat(3000), '99999999999999999999', ' BTCUSDT', 'deribit', 'okx,kraken',
  'flow', 'std', 'ranked,spot', 'candles,zones,max_pain', 'BTCUSDT,SOLUSDT,XRP', '2026-01-01T00:00:00Z', '2099-01-01T00:00:00Z', '1970-01-01T00:00:00Z',
  '2026-02-30T00:00:00Z', '27DEC24', '2026-12-25', 'A,B,C,D,E,F,G,H,I',
  'BTC', 'ETH', 'hk', 'us', 'crypto', 'all', '3y', 'divergence', 'true', 'MSTR', 'IBIT', '133741', '200',
];
const CHARS = 'abcXYZ019_-.~!*\'();:@&=+$,/?#[]% \t"<>\\^`{|}';

export interface FuzzResult {
  readonly counts: ReadonlyMap<number, number>;
  readonly seconds: number;
}

export async function fuzzApp(app: ApiInstance, key: string, routes: readonly string[], n: number, seed: number): Promise<FuzzResult> {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const randomText = (len: number): string => Array.from({ length: len }, () => pick([...CHARS])).join('');
  const counts = new Map<number, number>();
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    const parts: string[] = [];
    const k = Math.floor(rnd() * 5);
    for (let j = 0; j < k; j++) {
      const r = rnd();
      if (r < 0.6) parts.push(`${pick(FUZZ_NAMES)}=${pick(FUZZ_VALUES)}`);
      else if (r < 0.8) parts.push(`${pick(FUZZ_NAMES)}=${encodeURIComponent(randomText(1 + Math.floor(rnd() * 20)))}`);
      else parts.push(randomText(1 + Math.floor(rnd() * 12)).replace(/[#\s]/g, ''));
    }
    const url = `${pick(routes)}${k > 0 ? `?${parts.join('&')}` : ''}`;
    const headers: Record<string, string> = {};
    const hr = rnd();
    if (hr < 0.55) headers['x-api-key'] = key;
    else if (hr < 0.65) headers['x-api-key'] = key.slice(0, Math.floor(rnd() * key.length));
    else if (hr < 0.75) headers['x-api-key'] = randomText(40).replace(/[\t"\\]/g, 'x');
    else if (hr < 0.8) headers['x-api-key'] = `${key}x`;
    if (rnd() < 0.3) headers['x-request-id'] = randomText(Math.floor(rnd() * 200)).replace(/[\t"\\]/g, 'y');
    if (rnd() < 0.1) headers.accept = pick(['text/html', '*/*', 'application/xml', '']);
    if (rnd() < 0.05) headers['content-type'] = pick(['application/json', 'text/plain', 'multipart/form-data']);
    const res = await app.inject({ method: rnd() < 0.97 ? 'GET' : pick(['POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS'] as const), url, headers });
    counts.set(res.statusCode, (counts.get(res.statusCode) ?? 0) + 1);
    assert.ok(res.statusCode < 500, `${res.statusCode} for ${url} ${JSON.stringify(headers)}: ${res.body.slice(0, 300)}`);
    if (res.statusCode >= 400 && res.body !== '') {
      const body = res.json<{ success: boolean; error: { code: string; message: string }; meta: { version: string; request_id: string } }>();
      assert.equal(body.success, false, url);
      assert.equal(typeof body.error.code, 'string');
      assert.equal(typeof body.error.message, 'string');
      assert.equal(body.meta.version, '2.0');
      assert.equal(body.meta.request_id, res.headers['x-request-id']);
    }
  }
  return { counts, seconds: (performance.now() - started) / 1000 };
}
