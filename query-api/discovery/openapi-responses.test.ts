/**
 * /v2/openapi.json against the live answers. The document is validated as OpenAPI 3.1; then every GET path it lists
 * (taken from the document, so a new route without a request case below fails) is requested on the full app (every
 * route family, GEX included) over a temp store holding the GEX fixture, its raw market events, a market window,
 * calibrated-range inputs and the bundled ETF / COT / 13F files. Each answer must have a status documented for the
 * operation, a Content-Type whose media type is documented for that status, and a body valid under that status and
 * media type's schema (Ajv, JSON Schema 2020-12, strict, `$ref`s resolved into components). Every secured operation
 * is also asked without a key (401), and a few 422 / 404 / 403 answers are checked against the error schema.
 * The response schemas themselves are checked to be closed (no object that takes undeclared keys, no JSON Schema
 * tuple) and free-form only where the API means it (FREE_FORM).
 */
import { AGGREGATION_METHODS, AGGREGATION_ROUTES, AGGREGATION_VENUES } from '../envelope/aggregation.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { indexPriceRow, linearTradeRow } from '#clickhouse/rows.ts';
import type { Store } from '#clickhouse/store.ts';
import { indexPrice as indexPriceEvent, perpTrade } from '#clickhouse/testing/fixtures.ts';
import { loadBundledReferenceData } from '#ingest/reference/bundled.ts';
import { E2, marketEvents } from '#processors/snapshots/testing/chain-fixture.ts';
import { indexPrice } from '#processors/snapshots/testing/events.ts';
import { storeEvents } from '#processors/snapshots/testing/store-events.ts';
import { SnapshotCache } from '../gex/snapshot-cache.ts';
import { LIQS, PERP, SPOT, STATS, T0 } from '../market/testing/fixtures.ts';
import { A, B, C, seedGex } from '../testing/gex-fixture.ts';
import { migratedStore, testApp, testClock, userWithKey } from '../testing/harness.ts';
import type { ApiInstance } from '../types.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };
interface MediaTypeObject {
  readonly schema?: JsonObject;
}
interface ResponseObject {
  readonly $ref?: string;
  readonly description?: string;
  readonly content?: Readonly<Record<string, MediaTypeObject>>;
}
interface ParameterObject {
  readonly name: string;
  readonly in: string;
  readonly schema?: { readonly enum?: readonly string[] };
}
interface Operation {
  readonly security?: readonly unknown[];
  readonly parameters?: readonly ParameterObject[];
  readonly responses: Readonly<Record<string, ResponseObject>>;
}
interface OpenApiDocument {
  readonly openapi: string;
  readonly paths: Readonly<Record<string, Readonly<Record<string, Operation>>>>;
  readonly security?: readonly unknown[];
  readonly components?: {
    readonly schemas?: Readonly<Record<string, JsonObject>>;
    readonly responses?: Readonly<Record<string, ResponseObject>>;
  };
}
interface Answer {
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, unknown>>;
  readonly body: string;
}

const H = 3_600_000;
const iso = (ms: number): string => new Date(ms).toISOString();
const expiryDate = iso(E2).slice(0, 10);

/**
 * 200 answers to ask for, per documented GET path (query strings; `{param}` is expanded over the parameter's
 * documented enum). A documented path missing here fails the test: add its requests.
 */
const OK_CASES: Readonly<Record<string, readonly string[]>> = {
  '/v2/health': [''],
  '/v2/meta': [''],
  '/v2/endpoints': [''],
  '/v2/changelog': [''],
  '/v2/symbols': [''],
  '/v2/expiries': ['symbol=BTCUSDT', 'symbol=BTCUSDT&venue=deribit&max_dte=30'],
  '/v2/status': ['', 'symbol=BTCUSDT'],
  '/v2/openapi.json': [''],
  '/v2/asyncapi.json': [''],
  '/v2/docs': [''],
  '/v2/redoc': [''],
  '/v2/market/candles': ['symbol=BTCUSDT&interval=1m&hours=6', 'symbol=BTCUSDT&interval=1m&hours=6&market=spot'],
  '/v2/market/open-interest': ['symbol=BTCUSDT&interval=1m&hours=6'],
  '/v2/market/bundle': [
    'symbol=BTCUSDT&interval=1m&hours=6',
    'symbol=BTCUSDT&interval=5m&hours=6&series=funding,liquidations,cvd_perp,cvd_spot,open_interest',
  ],
  '/v2/etf/flows': ['asset=BTC', 'asset=ETH&region=us'],
  '/v2/cot/summary': ['', 'asset_class=all&limit=5&sort=net'],
  '/v2/cot/markets': [''],
  '/v2/cot/instrument': ['id=090741&span=1y', 'id=133741'],
  '/v2/filings/holders': ['ticker=MSTR', 'ticker=IBIT&limit=3'],
  '/v2/tape': ['symbol=BTCUSDT', 'symbol=BTCUSDT&order=asc&limit=2'],
  '/v2/tape/recent': ['symbol=BTCUSDT'],
  '/v2/replay': [
    `channels=tape.BTCUSDT,levels.BTCUSDT,chain.BTCUSDT.deribit&from=${iso(A - 3 * H)}&to=${iso(C)}`,
    `channels=levels.BTCUSDT.okx,deribit&from=${A - H}&to=${C}`,
  ],
  '/v2/tape/strike-heat': ['symbol=BTCUSDT', 'symbol=BTCUSDT&hours=48&venues=deribit'],
  '/v2/tape/flow-by-strike': ['symbol=BTCUSDT'],
  '/v2/options/pcr': ['symbol=BTCUSDT', 'symbol=BTCUSDT&days=1&include=exchange_breakdown', 'symbol=BTCUSDT&days=2&granularity=daily'],
  '/v2/options/premium-tide': ['symbol=BTCUSDT'],
  '/v2/options/range': ['symbol=BTCUSDT', 'symbol=BTCUSDT&include=past'],
  '/v2/options/greeks/{greek}': ['symbol=BTCUSDT', 'symbol=BTCUSDT&include=exchange_breakdown&positioning=std'],
  '/v2/options/greeks/surfaces/{greek}': ['symbol=BTCUSDT', 'symbol=BTCUSDT&include=exchange_breakdown'],
  '/v2/options/greeks/3d/surface': ['symbol=BTCUSDT', 'symbol=BTCUSDT&metric=iv'],
  '/v2/options/chain': [
    'symbol=BTCUSDT',
    'symbol=BTCUSDT&layout=ladder',
    `symbol=BTCUSDT&include=exchange_breakdown&expiry=${expiryDate}`,
    `symbol=BTCUSDT&as_of=${iso(B)}`,
  ],
  '/v2/options/venue-book': ['symbol=BTCUSDT'],
  '/v2/options/oi/by-expiry': ['symbol=BTCUSDT', 'symbol=BTCUSDT&include=exchange_breakdown'],
  '/v2/options/iv/smile': ['symbol=BTCUSDT', 'symbol=BTCUSDT&include=venues'],
  '/v2/options/iv/term-structure': ['symbol=BTCUSDT'],
  '/v2/gex/levels': [
    'symbol=BTCUSDT',
    'symbol=BTCUSDT&include=by_strike,candles,expected_move,max_pain,profile,ranked,spot,zones',
    'symbol=SOLUSDT&include=zones,ranked',
    `symbol=BTCUSDT&as_of=${iso(B + 1000)}&positioning=std`,
  ],
  '/v2/gex/gamma-flow': ['symbol=BTCUSDT', 'symbol=SOLUSDT'],
  '/v2/multi/gex/levels': ['symbols=BTCUSDT,SOLUSDT,ETHUSDT,NOPE&include=expected_move,max_pain,ranked,zones'],
  '/v2/gex/max-pain': ['symbol=BTCUSDT', `symbol=BTCUSDT&expiry=${expiryDate}`],
  '/v2/gex/strike-expiry-heatmap': ['symbol=BTCUSDT'],
  '/v2/gex/stress-history': ['symbol=BTCUSDT', 'symbol=BTCUSDT&interval=30s&hours=2'],
  '/v2/gex/level-study': ['symbol=BTCUSDT&days=2&horizon=5m&step=5m', 'symbol=BTCUSDT&days=2&positioning=std&exchanges=deribit'],
};

/** Error answers with the key of an active enterprise user (or the named key), beside the 401 of every secured operation. */
const ERROR_CASES: readonly { readonly url: string; readonly status: number; readonly key?: 'canceled' | 'malformed' }[] = [
  { url: '/v2/gex/levels?symbol=NOPE', status: 422 },
  { url: '/v2/options/chain?symbol=BTCUSDT&layout=sideways&moneyness=x', status: 422 },
  { url: '/v2/tape?symbol=BTCUSDT&limit=0', status: 422 },
  { url: '/v2/options/greeks/rho?symbol=BTCUSDT', status: 422 },
  { url: '/v2/etf/flows?asset=ETH&region=hk', status: 422 },
  { url: '/v2/gex/max-pain?symbol=BTCUSDT&expiry=1JAN20', status: 404 },
  { url: '/v2/options/range?symbol=SOLUSDT', status: 404 },
  { url: '/v2/cot/instrument?id=999999', status: 404 },
  { url: '/v2/cot/instrument?id=nope', status: 422 },
  { url: '/v2/gex/levels?symbol=ETHUSDT', status: 404 },
  { url: '/v2/meta', status: 403, key: 'canceled' },
  { url: '/v2/options/chain?symbol=BTCUSDT', status: 401, key: 'malformed' },
];

/**
 * Where a response schema accepts any value on purpose: `meta.extra` (endpoint-specific keys), `error.details`
 * (per error code), the OpenAPI and AsyncAPI documents, the `default` and `enum` of a parameter in /v2/endpoints.
 * Anything else free-form (a schema without type, an object open to undeclared keys) fails the test.
 */
const FREE_FORM: readonly RegExp[] = [
  /^\S+ \d{3} application\/json \/properties\/meta\/properties\/extra\/additionalProperties$/,
  /^\S+ \d{3} application\/json \/properties\/error\/properties\/details\/additionalProperties$/,
  /^\/v2\/(openapi|asyncapi)\.json 200 application\/json \/additionalProperties$/,
  /^\/v2\/endpoints 200 application\/json \/properties\/data\/properties\/endpoints\/items\/properties\/parameters\/items\/properties\/(default|enum\/items)$/,
];

const SCHEMA_KEYWORDS = ['type', 'anyOf', 'oneOf', 'allOf', 'const', 'enum', '$ref', 'not'];
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** JSON pointers (below `at`) of subschemas that accept any value, are objects open to undeclared keys, or are tuples. */
function looseSpots(schema: Json, at: string, out: string[]): void {
  if (schema === true) out.push(`${at} (true)`);
  if (!isObject(schema)) return;
  if (!SCHEMA_KEYWORDS.some((k) => k in schema)) out.push(at);
  const types = Array.isArray(schema['type']) ? schema['type'] : [schema['type']];
  if ((types.includes('object') || 'properties' in schema) && (schema['additionalProperties'] ?? true) === true)
    out.push(`${at} (object open to undeclared keys)`);
  if ('prefixItems' in schema) out.push(`${at} (JSON Schema tuple: prefixItems)`);
  for (const [key, child] of Object.entries(schema)) {
    if (key === 'properties' && isObject(child))
      for (const [name, s] of Object.entries(child)) looseSpots(s, `${at}/properties/${name}`, out);
    else if (key === 'items' || key === 'additionalProperties' || key === 'not') looseSpots(child, `${at}/${key}`, out);
    else if ((key === 'anyOf' || key === 'oneOf' || key === 'allOf' || key === 'prefixItems') && Array.isArray(child))
      child.forEach((s, i) => looseSpots(s, `${at}/${key}/${i}`, out));
  }
}

const COMPONENTS_ID = 'urn:gex:openapi-components';

/** `#/components/schemas/X` → the components schema registered in Ajv (every other `$ref` is left as is and fails to compile). */
function rewriteRefs(value: Json): Json {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/')
        ? `${COMPONENTS_ID}#/$defs/${v.slice('#/components/schemas/'.length)}`
        : rewriteRefs(v),
    ]),
  );
}

function ajvFor(doc: OpenApiDocument): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  // OpenAPI 3.1's own schema keywords (annotations for validation).
  for (const keyword of ['discriminator', 'xml', 'externalDocs', 'example']) ajv.addKeyword(keyword);
  ajv.addSchema({ $id: COMPONENTS_ID, $defs: rewriteRefs(doc.components?.schemas ?? {}) });
  return ajv;
}

const mediaType = (res: Answer): string | undefined => {
  const v = res.headers['content-type'];
  return typeof v === 'string' ? v.split(';')[0]?.trim().toLowerCase() : undefined;
};
const isJsonMedia = (m: string): boolean => m === 'application/json' || m.endsWith('+json');

/**
 * meta.extra.aggregation (a documented meta key, vocabulary in envelope/aggregation.ts and /v2/meta): present with
 * known values on every route of AGGREGATION_ROUTES, absent elsewhere.
 */
function aggregationProblems(path: string, url: string, body: string): string[] {
  let meta: { extra?: { aggregation?: unknown } } | undefined;
  try {
    meta = (JSON.parse(body) as { meta?: typeof meta }).meta;
  } catch {
    return [];
  }
  const a = meta?.extra?.aggregation as
    { venues?: string; interval?: unknown; method?: string; series?: Record<string, string> } | undefined;
  const expected = (AGGREGATION_ROUTES as readonly string[]).includes(path);
  if (!expected) return a === undefined ? [] : [`${url}: meta.extra.aggregation on a route not in AGGREGATION_ROUTES`];
  if (a === undefined) return [`${url}: no meta.extra.aggregation`];
  const problems: string[] = [];
  if (!Object.hasOwn(AGGREGATION_VENUES, a.venues ?? '')) problems.push(`${url}: aggregation.venues ${String(a.venues)}`);
  if (!Object.hasOwn(AGGREGATION_METHODS, a.method ?? '')) problems.push(`${url}: aggregation.method ${String(a.method)}`);
  if (a.interval !== null && typeof a.interval !== 'string') problems.push(`${url}: aggregation.interval ${String(a.interval)}`);
  for (const [name, m] of Object.entries(a.series ?? {}))
    if (!Object.hasOwn(AGGREGATION_METHODS, m)) problems.push(`${url}: aggregation.series.${name} ${m}`);
  return problems;
}

/** Every request of OK_CASES for `path`, path parameters expanded over their documented enum. */
function urlsFor(path: string, op: Operation): string[] {
  let urls = [path];
  for (const p of op.parameters?.filter((x) => x.in === 'path') ?? []) {
    const values = p.schema?.enum;
    assert.ok(values !== undefined && values.length > 0, `${path}: path parameter ${p.name} has no documented enum to expand`);
    urls = urls.flatMap((u) => values.map((v) => u.replace(`{${p.name}}`, encodeURIComponent(v))));
  }
  assert.ok(
    urls.every((u) => !u.includes('{')),
    `${path}: a path parameter is not documented`,
  );
  return urls.flatMap((u) => (OK_CASES[path] ?? []).map((q) => (q === '' ? u : `${u}?${q}`)));
}

/** Raw market events the snapshot processor saw, an hour of the market fixture, 48 h of hourly perp prints and DVOL. */
async function seedStore(store: Store): Promise<void> {
  await seedGex(store);
  await storeEvents(store, [
    ...marketEvents(),
    { type: 'index', event: indexPrice('deribit', 100_500, B - 1000) },
    { type: 'index', event: indexPrice('okx', 100_600, B - 1000) },
    { type: 'index', event: indexPrice('deribit', 99_500, C - 1000) },
  ]);
  await loadBundledReferenceData(store);
  const shift = Math.floor((C - 3 * H) / H) * H - T0;
  const moved = <R extends { ts: number; received_at: number; id: string }>(rows: readonly R[]): R[] =>
    rows.map((r) => ({ ...r, ts: r.ts + shift, received_at: r.received_at + shift, id: `${r.id}-openapi` }));
  await store.insert('perp_trades', moved(PERP));
  await store.insert('spot_trades', moved(SPOT));
  await store.insert('perp_stats', moved(STATS));
  await store.insert('liquidations', moved(LIQS));
  const hours = Array.from({ length: 48 }, (_, i) => Math.floor(A / H) * H - (i + 1) * H);
  await store.insert(
    'perp_trades',
    hours.map((ts, i) =>
      linearTradeRow({
        ...perpTrade,
        symbol: 'BTCUSDT',
        ts: ts + 1000,
        receivedAt: ts + 1000,
        price: 100_000 + ((i * 37) % 11) * 150,
        id: `binance:openapi:${i}`,
        tradeId: `oa${i}`,
      }),
    ),
  );
  await store.insert(
    'index_prices',
    hours.map((ts, i) =>
      indexPriceRow({
        ...indexPriceEvent,
        symbol: 'BTCUSDT',
        kind: 'vol_index',
        name: 'btc_usd',
        ts,
        receivedAt: ts,
        value: 50 + (i % 5),
        id: `deribit:vol_index:btc_usd:${ts}`,
      }),
    ),
  );
}

describe('/v2/openapi.json describes every live answer', () => {
  let t: Awaited<ReturnType<typeof migratedStore>>;
  let app: ApiInstance;
  let key: string;
  let canceledKey: string;
  let doc: OpenApiDocument;
  let ajv: Ajv2020;
  const validators = new Map<string, ValidateFunction>();

  before(async () => {
    t = await migratedStore();
    await seedStore(t.store);
    const cache = new SnapshotCache(t.store, { pollMs: 0 });
    await cache.refresh();
    key = await userWithKey(t.store, { userId: 'openapi', plan: 'enterprise' });
    canceledKey = await userWithKey(t.store, { userId: 'openapi-canceled', plan: 'api_monthly', status: 'canceled' });
    // As in production (RESPONSE_VALIDATION=false): the handlers' output is sent as is, not passed through the zod
    // schemas first (which would strip a key the schema lacks), so the document is checked against what clients get.
    app = await testApp(
      t.store,
      { responseValidation: false, healthPerIpPerMinute: 1_000_000, marketCacheMs: 0 },
      { clock: testClock(C + 10_000), snapshots: cache },
    );
    const res = await app.inject({ url: '/v2/openapi.json' });
    assert.equal(res.statusCode, 200);
    doc = res.json<OpenApiDocument>();
    ajv = ajvFor(doc);
  });
  after(async () => {
    await app.close();
    await t.dispose();
  });

  const getOperations = (): [string, Operation][] =>
    Object.entries(doc.paths).flatMap(([path, item]) => (item['get'] !== undefined ? [[path, item['get']] as [string, Operation]] : []));

  const responseOf = (op: Operation, status: string): ResponseObject | undefined => {
    const r = op.responses[status] ?? op.responses[`${status[0]}XX`] ?? op.responses['default'];
    if (r?.$ref === undefined) return r;
    return doc.components?.responses?.[r.$ref.replace('#/components/responses/', '')];
  };

  /** The problems of one answer against the operation's documented responses (empty = conforms). */
  const check = (path: string, op: Operation, url: string, res: Answer): string[] => {
    const status = String(res.statusCode);
    const documented = responseOf(op, status);
    if (documented === undefined)
      return [`${url}: status ${status} is not documented for ${path} (${Object.keys(op.responses).join(', ')})`];
    const media = mediaType(res);
    const content = documented.content ?? {};
    if (media === undefined) return res.body === '' ? [] : [`${url}: ${status} has a body and no Content-Type`];
    const entry = content[media];
    if (entry === undefined) return [`${url}: ${status} answered ${media}, documented ${Object.keys(content).join(', ') || 'no content'}`];
    if (entry.schema === undefined) return [];
    const id = `${path} ${status} ${media}`;
    let validate = validators.get(id);
    if (validate === undefined) {
      validate = ajv.compile(rewriteRefs(entry.schema) as JsonObject);
      validators.set(id, validate);
    }
    let body: unknown = res.body;
    if (isJsonMedia(media)) {
      try {
        body = JSON.parse(res.body);
      } catch {
        return [`${url}: ${status} ${media} body is not JSON`];
      }
    }
    if (validate(body)) return [];
    return (validate.errors ?? [])
      .slice(0, 8)
      .map((e) => `${url}: ${status} ${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
  };

  test('the document is valid OpenAPI 3.1', async () => {
    const result = await new Validator().validate(structuredClone(doc) as unknown as Parameters<Validator['validate']>[0]);
    assert.equal(result.valid, true, JSON.stringify(result.errors));
    assert.equal(doc.openapi, '3.1.0');
  });

  test('the validator resolves $ref into components.schemas (the generator may emit them)', () => {
    const row = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'], additionalProperties: false };
    const list = { type: 'array', items: { $ref: '#/components/schemas/Row' } };
    const synthetic: OpenApiDocument = { openapi: '3.1.0', paths: {}, components: { schemas: { Row: row, List: list } } };
    const validate = ajvFor(synthetic).compile(rewriteRefs({ $ref: '#/components/schemas/List' }) as JsonObject);
    assert.equal(validate([{ n: 1 }]), true);
    assert.equal(validate([{ n: '1' }]), false);
    assert.equal(validate([{ n: 1, extra: true }]), false);
  });

  test('response schemas are closed: free-form only where FREE_FORM says, no tuples', () => {
    const spots: string[] = [];
    for (const [path, op] of getOperations())
      for (const [status, r] of Object.entries(op.responses))
        for (const [media, m] of Object.entries(responseOf(op, status)?.content ?? r.content ?? {}))
          if (m.schema !== undefined) looseSpots(m.schema, `${path} ${status} ${media} `, spots);
    for (const [name, s] of Object.entries(doc.components?.schemas ?? {})) looseSpots(s, `#/components/schemas/${name} `, spots);
    const unexpected = spots.filter((s) => !FREE_FORM.some((re) => re.test(s)));
    assert.deepEqual(unexpected, []);
    assert.doesNotMatch(JSON.stringify(doc), /"prefixItems"/);
  });

  test('every GET path: documented status, media type and body for each answer; 401 without a key', async () => {
    const operations = getOperations();
    assert.ok(operations.length >= 40, `${operations.length} GET operations`);
    const missing = operations.map(([p]) => p).filter((p) => OK_CASES[p] === undefined);
    assert.deepEqual(missing, [], 'documented GET paths without a request case in OK_CASES');
    const stale = Object.keys(OK_CASES).filter((p) => doc.paths[p]?.['get'] === undefined);
    assert.deepEqual(stale, [], 'OK_CASES paths the document does not list');

    const problems: string[] = [];
    const sizes: string[] = [];
    let requests = 0;
    for (const [path, op] of operations) {
      let bytes = 0;
      for (const url of urlsFor(path, op)) {
        const res = await app.inject({ url, headers: { 'x-api-key': key } });
        requests++;
        bytes += res.body.length;
        if (res.statusCode !== 200) problems.push(`${url}: expected 200, got ${res.statusCode} ${res.body.slice(0, 300)}`);
        problems.push(...check(path, op, url, res));
        if (res.statusCode === 200) problems.push(...aggregationProblems(path, url, res.body));
      }
      sizes.push(`${path} ${bytes}`);
      const secured = (op.security ?? doc.security ?? []).length > 0;
      if (secured) {
        const url = urlsFor(path, op)[0] ?? path;
        const res = await app.inject({ url });
        requests++;
        if (res.statusCode !== 401) problems.push(`${url} without a key: expected 401, got ${res.statusCode}`);
        problems.push(...check(path, op, `${url} (no key)`, res));
      }
    }
    process.stderr.write(`openapi-responses: ${operations.length} GET paths, ${requests} requests; bytes per path: ${sizes.join(', ')}\n`);
    assert.deepEqual(problems, []);
  });

  test('error answers (422, 404, 403, 401) validate against the documented error schema', async () => {
    const keys = { canceled: canceledKey, malformed: 'gex_live_short' };
    const templates = getOperations().map(([path, op]) => ({
      path,
      op,
      re: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/?]+')}(\\?|$)`),
    }));
    const problems: string[] = [];
    for (const c of ERROR_CASES) {
      const route = templates.find((x) => x.re.test(c.url));
      assert.ok(route !== undefined, `${c.url} is a documented path`);
      const res = await app.inject({ url: c.url, headers: { 'x-api-key': c.key === undefined ? key : keys[c.key] } });
      if (res.statusCode !== c.status) problems.push(`${c.url}: expected ${c.status}, got ${res.statusCode} ${res.body.slice(0, 200)}`);
      problems.push(...check(route.path, route.op, c.url, res));
    }
    assert.deepEqual(problems, []);
    assert.ok(
      [422, 401].every((s) => ERROR_CASES.some((c) => c.status === s)),
      'a 422 and a 401 are among the cases',
    );
  });
});
