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
  return Object.keys(doc.paths)
    .filter((p) => doc.paths[p]?.['get'] !== undefined)
    .sort();
}

/** The query parameter names of every GET path, from the same OpenAPI document. */
export function routeParams(app: ApiInstance): ReadonlyMap<string, readonly string[]> {
  const doc = app.swagger() as unknown as { paths: Record<string, { get?: { parameters?: { name: string; in: string }[] } }> };
  return new Map(
    Object.entries(doc.paths).map(([p, ops]) => [p, (ops.get?.parameters ?? []).filter((x) => x.in === 'query').map((x) => x.name)]),
  );
}

/**
 * Hostile values: SQL (string breaks, comments, stacked statements, ClickHouse placeholders), path traversal, header
 * injection (CR/LF), markup, format strings, overlong and binary values.
 */
export const INJECTIONS = [
  "' OR '1'='1",
  "1' OR 1=1 --",
  "'; DROP TABLE api_keys; --",
  '1;SELECT 1',
  "BTCUSDT' OR 1",
  '{symbol:String}',
  '{x:Array(String)}',
  '1 UNION ALL SELECT name FROM system.tables',
  'toString((SELECT count() FROM api_keys))',
  '$(id)',
  '`id`',
  '../../etc/passwd',
  '..%2F..%2Fetc%2Fpasswd',
  '%2e%2e%2f%2e%2e%2f',
  '/etc/passwd%00',
  '....//....//',
  '%0d%0aSet-Cookie:%20x=1',
  '%0d%0aX-Injected:%201',
  '%0aLocation:%20http://evil',
  '<script>alert(1)</script>',
  '%25s%25n%25x',
  '%00',
  '%ff%fe',
  '\u0000',
  'x'.repeat(20_000),
  '9'.repeat(400),
  '-0',
  '1e308',
  '-1e-320',
  'Infinity',
  '[object Object]',
];

/**
 * What an error body must never show: stack frames, source paths, store internals (table names, SQL, ClickHouse
 * error text), library names.
 */
export const LEAK =
  /node_modules|\.ts:\d+|at [\w.<>]+ \(|\/work\/|\bFINAL\b|\bSELECT\b|Code: \d+|DB::Exception|chdb|[Cc]lick[Hh]ouse|option_trades|gex_snapshots|api_keys|usage_events|ZodError|TypeError|ReferenceError|[Ff]astify/;

const safeDecode = (v: string): string => {
  try {
    return decodeURIComponent(v.replace(/\+/g, ' '));
  } catch {
    return v;
  }
};

/** The body with every value the request itself sent removed (an error may echo the received value back). */
function withoutEcho(body: string, url: string): string {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const query = q < 0 ? '' : url.slice(q + 1);
  const sent = [...path.split('/'), ...query.split('&').flatMap((kv) => kv.split('='))]
    .filter((v) => v.length > 2)
    .flatMap((v) => {
      const d = safeDecode(v);
      return [v, d, JSON.stringify(d).slice(1, -1), JSON.stringify(v).slice(1, -1)];
    });
  let out = body;
  for (const v of [...new Set(sent)].sort((a, b) => b.length - a.length)) out = out.split(v).join('');
  return out;
}

export const FUZZ_NAMES = [
  'symbol',
  'symbols',
  'venue',
  'max_dte',
  'exchanges',
  'include',
  'as_of',
  'positioning',
  'expiry',
  'days',
  '__proto__',
  'constructor',
  'a[b]',
  '',
  'limit',
  'symbol[]',
  'asset',
  'region',
  'asset_class',
  'span',
  'sort',
  'extremes_only',
  'ticker',
  'id',
];
export const FUZZ_VALUES = [
  'BTCUSDT',
  'btcusdt',
  'ETHUSDT',
  'SOLUSDT',
  '',
  '-1',
  '0',
  '3650',
  '3651',
  '1e3',
  '0x10',
  'NaN',
  'null',
  '[]',
  '{}',
  '%',
  '%zz',
  '%00',
  '%E2%82%AC',
  '%F0%9F%92%A9',
  "'; DROP TABLE users; --",
  '../../etc/passwd',
  'x'.repeat(3000),
  '99999999999999999999',
  ' BTCUSDT',
  'deribit',
  'okx,kraken',
  'flow',
  'std',
  'ranked,spot',
  'candles,zones,max_pain',
  'BTCUSDT,SOLUSDT,XRP',
  '2026-01-01T00:00:00Z',
  '2099-01-01T00:00:00Z',
  '1970-01-01T00:00:00Z',
  '2026-02-30T00:00:00Z',
  '27DEC24',
  '2026-12-25',
  'A,B,C,D,E,F,G,H,I',
  'BTC',
  'ETH',
  'hk',
  'us',
  'crypto',
  'all',
  '3y',
  'divergence',
  'true',
  'MSTR',
  'IBIT',
  '133741',
  '200',
];
const CHARS = 'abcXYZ019_-.~!*\'();:@&=+$,/?#[]% \t"<>\\^`{|}';

export interface FuzzResult {
  readonly counts: ReadonlyMap<number, number>;
  readonly seconds: number;
}

/** A non-5xx reply whose error body is the envelope, with no internals and no injected response header. */
export function checkReply(
  res: { statusCode: number; body: string; headers: Record<string, unknown>; json: <T>() => T },
  url: string,
  what: string,
): void {
  assert.ok(res.statusCode < 500, `${res.statusCode} for ${url} ${what}: ${res.body.slice(0, 300)}`);
  assert.ok(
    res.headers['set-cookie'] === undefined && res.headers['x-injected'] === undefined && res.headers['location'] === undefined,
    `injected header for ${url}`,
  );
  if (res.statusCode >= 400 && res.body !== '') {
    assert.doesNotMatch(withoutEcho(res.body, url), LEAK, `internal detail in the ${res.statusCode} body for ${url}`);
    const body = res.json<{ success: boolean; error: { code: string; message: string }; meta: { version: string; request_id: string } }>();
    assert.equal(body.success, false, url);
    assert.equal(typeof body.error.code, 'string');
    assert.equal(typeof body.error.message, 'string');
    assert.equal(body.meta.version, '2.0');
    assert.equal(body.meta.request_id, res.headers['x-request-id']);
  }
}

const VALID: Readonly<Record<string, string>> = { symbol: 'BTCUSDT', ticker: 'MSTR', id: '133741', asset: 'BTC' };

/**
 * Every query parameter of every route (and every path parameter, in place of its placeholder) with every
 * INJECTIONS value, alone and next to otherwise valid values: returns the request count and the statuses.
 */
export async function injectionSweep(
  app: ApiInstance,
  key: string,
): Promise<{ readonly requests: number; readonly counts: ReadonlyMap<number, number> }> {
  const counts = new Map<number, number>();
  let requests = 0;
  for (const [path, params] of routeParams(app)) {
    // Valid values of the route's other key parameters, so the hostile one is not the only thing wrong.
    const valid = (except: string): string =>
      params
        .filter((p) => p !== except && VALID[p] !== undefined)
        .map((p) => `${p}=${VALID[p] ?? ''}&`)
        .join('');
    const targets: { readonly url: (v: string) => string }[] = params.flatMap((name) => [
      { url: (v: string) => `${path}?${name}=${v}` },
      { url: (v: string) => `${path}?${valid(name)}${name}=${v}` },
    ]);
    if (path.includes('{')) targets.push({ url: (v: string) => path.replace(/\{[^}]+\}/, v) });
    for (const target of targets) {
      for (const v of INJECTIONS) {
        const url = target.url(v.includes('%') ? v : encodeURIComponent(v));
        const res = await app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
        requests++;
        counts.set(res.statusCode, (counts.get(res.statusCode) ?? 0) + 1);
        checkReply(res, url, 'injection');
      }
    }
  }
  return { requests, counts };
}

export async function fuzzApp(app: ApiInstance, key: string, routes: readonly string[], n: number, seed: number): Promise<FuzzResult> {
  const rnd = prng(seed);
  const params = routeParams(app);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const randomText = (len: number): string => Array.from({ length: len }, () => pick([...CHARS])).join('');
  const counts = new Map<number, number>();
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    const parts: string[] = [];
    const route = pick(routes);
    const k = Math.floor(rnd() * 5);
    for (let j = 0; j < k; j++) {
      const r = rnd();
      const own = params.get(route) ?? [];
      const name = own.length > 0 && rnd() < 0.6 ? pick(own) : pick(FUZZ_NAMES);
      if (r < 0.45) parts.push(`${name}=${pick(FUZZ_VALUES)}`);
      else if (r < 0.6) parts.push(`${name}=${pick(INJECTIONS)}`);
      else if (r < 0.8) parts.push(`${name}=${encodeURIComponent(randomText(1 + Math.floor(rnd() * 20)))}`);
      else parts.push(randomText(1 + Math.floor(rnd() * 12)).replace(/[#\s]/g, ''));
    }
    const url = `${route}${k > 0 ? `?${parts.join('&')}` : ''}`;
    const headers: Record<string, string> = {};
    const hr = rnd();
    if (hr < 0.55) headers['x-api-key'] = key;
    else if (hr < 0.65) headers['x-api-key'] = key.slice(0, Math.floor(rnd() * key.length));
    else if (hr < 0.75) headers['x-api-key'] = randomText(40).replace(/[\t"\\]/g, 'x');
    else if (hr < 0.8) headers['x-api-key'] = `${key}x`;
    if (rnd() < 0.3) headers['x-request-id'] = randomText(Math.floor(rnd() * 200)).replace(/[\t"\\]/g, 'y');
    if (rnd() < 0.1) headers.accept = pick(['text/html', '*/*', 'application/xml', '']);
    if (rnd() < 0.05) headers['content-type'] = pick(['application/json', 'text/plain', 'multipart/form-data']);
    const res = await app.inject({
      method: rnd() < 0.97 ? 'GET' : pick(['POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS'] as const),
      url,
      headers,
    });
    counts.set(res.statusCode, (counts.get(res.statusCode) ?? 0) + 1);
    checkReply(res, url, JSON.stringify(headers));
  }
  return { counts, seconds: (performance.now() - started) / 1000 };
}
