import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '#clickhouse/store.ts';
import { expiryToken } from './expiry-token.ts';
import { assertOk } from '../testing/assertions.ts';
import { migratedStore, testApp, testClock, userWithKey } from '../testing/harness.ts';
import type { ApiInstance } from '../types.ts';

const NOW = Math.floor(Date.now() / 1000) * 1000;
const S = 1000;
const DAY = 86_400_000;
const iso = (ms: number): string => new Date(ms).toISOString();
const EXP1 = NOW + 2 * DAY;
const EXP2 = Math.floor((NOW + 40 * DAY) / DAY) * DAY + 8 * 3_600_000;
const ETH_EXP = NOW + 10 * DAY;

const base = (venue: string, symbol: string, ts: number, id: string) => ({ venue, symbol, ts, received_at: ts, id });
const ticker = (symbol: string, ts: number, expiry: number, indexPrice: number | null, id: string) => ({
  ...base('deribit', symbol, ts, id),
  instrument: `X-${id}`,
  strike: 60000,
  expiry,
  option_type: 'call',
  mark_price: 100,
  mark_iv: 0.5,
  bid_iv: null,
  ask_iv: null,
  delta: 0.5,
  gamma: 0.0001,
  vega: 10,
  theta: -5,
  open_interest: 12,
  underlying_price: indexPrice,
  index_price: indexPrice,
});
const instrument = (venue: string, name: string, expiry: number, active = true) => ({
  ...base(venue, 'BTCUSDT', NOW - 60 * S, name),
  instrument: name,
  kind: 'option',
  strike: 60000,
  expiry,
  option_type: 'call',
  contract_size: 1,
  settlement_currency: 'BTC',
  quote_currency: 'BTC',
  active,
});

async function seed(store: Store): Promise<void> {
  await store.insert('option_tickers', [
    ticker('BTCUSDT', NOW - 90 * S, EXP1, 64900, 't1'),
    ticker('BTCUSDT', NOW - 30 * S, EXP1, 65000, 't2'),
    ticker('ETHUSDT', NOW - 200 * S, ETH_EXP, 3500, 't3'),
  ]);
  await store.insert('index_prices', [{ ...base('deribit', 'BTCUSDT', NOW - 10 * S, 'i1'), kind: 'index', name: 'btc_usd', value: 65010 }]);
  await store.insert('perp_trades', [
    {
      ...base('binance', 'BTCUSDT', NOW - 3600 * S, 'p1'),
      market: 'perp',
      instrument: 'BTCUSDT',
      price: 64000,
      size: 1,
      side: 'buy',
      trade_id: 'p1',
    },
  ]);
  await store.insert('instruments', [
    instrument('deribit', 'BTC-A-60000-C', EXP1),
    instrument('deribit', 'BTC-B-60000-C', EXP2),
    instrument('deribit', 'BTC-B-60000-P', EXP2),
    instrument('okx', 'BTC-USD-B-60000-C', EXP2),
    instrument('deribit', 'BTC-OLD', NOW - DAY),
    instrument('deribit', 'BTC-DEAD', NOW + 5 * DAY, false),
  ]);
}

describe('discovery routes', () => {
  let t: Awaited<ReturnType<typeof migratedStore>>;
  let app: ApiInstance;
  let key: string;
  const get = (url: string) => app.inject({ url, headers: { 'x-api-key': key } });

  before(async () => {
    t = await migratedStore();
    await seed(t.store);
    key = await userWithKey(t.store, { userId: 'disc', plan: 'api_yearly', evaluation: true });
    app = await testApp(t.store, {}, { clock: testClock(NOW) });
  });
  after(async () => {
    await app.close();
    await t.dispose();
  });

  test('/v2/health: ok with both checks passing; degraded when the cache fails', async () => {
    const { data } = assertOk(await app.inject({ url: '/v2/health' }));
    assert.equal(data.status, 'ok');
    assert.equal(data.cache, true);
    assert.equal(data.database, true);
    assert.equal(data.version, '2.14.1');
    const sick = await testApp(t.store, {}, { cacheHealth: () => ({ ok: false, age_seconds: 600 }) });
    const r = assertOk<{ status: string; cache: boolean; database: boolean; checks: { cache: unknown } }>(
      await sick.inject({ url: '/v2/health' }),
    );
    assert.equal(r.data.status, 'degraded');
    assert.equal(r.data.cache, false);
    assert.deepEqual(r.data.checks.cache, { ok: false, age_seconds: 600 });
    await sick.close();
  });

  test('/v2/meta: catalogs, error mapping, ladder, your_plan, data_coverage from the store', async () => {
    const { data } = assertOk<
      Record<string, unknown> & {
        error_codes: { code: string; http_status: number }[];
        rate_limits: {
          plans: {
            plan: string;
            level: string;
            burst_per_minute: number | null;
            monthly_quota: number | null;
            history_days: number | null;
          }[];
          health_per_ip_per_minute: number;
        };
        your_plan: Record<string, unknown>;
        data_coverage: Record<string, Record<string, { first_ts: string | null; last_ts: string | null }>>;
        symbols: { symbol: string }[];
        venues: string[];
        auth: { header: string; key_format: string; public_paths: string[] };
        history_depth: { levels: { level: string; history_days: number | null }[]; applies_to: string[] };
        aggregation: { routes: string[]; venues: Record<string, string>; methods: Record<string, string> };
        server_cache: { computed_routes: string[]; computed_routes_seconds: number; market_routes_seconds: number };
        level_study: { route: string; cli: string; definitions: string[] };
      }
    >(await get('/v2/meta'));
    assert.deepEqual(
      data.symbols.map((s) => s.symbol),
      ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'HYPEUSDT'],
    );
    assert.equal(data.venues.length, 10);
    assert.deepEqual(Object.fromEntries(data.error_codes.map((e) => [e.code, e.http_status])), {
      UNAUTHORIZED: 401,
      FORBIDDEN: 403,
      NOT_FOUND: 404,
      VALIDATION_ERROR: 422,
      RATE_LIMIT_EXCEEDED: 429,
      UPSTREAM_ERROR: 503,
      INTERNAL_ERROR: 500,
    });
    assert.equal(data.auth.header, 'X-API-Key');
    assert.equal(data.auth.key_format, 'gex_live_<32 alphanumeric characters>');
    assert.deepEqual(data.auth.public_paths, ['/v2/openapi.json', '/v2/docs', '/v2/redoc', '/v2/health']);
    assert.deepEqual(
      data.rate_limits.plans.map((p) => [p.plan, p.level, p.burst_per_minute, p.monthly_quota, p.history_days]),
      [
        ['api_monthly', 'standard', 60, 100000, 365],
        ['api_yearly', 'standard', 120, 100000, 365],
        ['terminal_yearly', 'starter', 30, 10000, 30],
        ['bundle_monthly', 'pro', 120, 500000, 1095],
        ['legacy', 'pro', 120, 500000, 1095],
        ['enterprise', 'enterprise', null, null, null],
      ],
    );
    assert.equal(data.rate_limits.health_per_ip_per_minute, 60);
    assert.deepEqual(data.history_depth.levels, [
      { level: 'starter', history_days: 30 },
      { level: 'standard', history_days: 365 },
      { level: 'pro', history_days: 1095 },
      { level: 'enterprise', history_days: null },
    ]);
    assert.ok(data.history_depth.applies_to.some((r) => r.includes('/v2/etf/flows, /v2/cot/summary, /v2/cot/instrument')));
    assert.ok(data.aggregation.routes.includes('/v2/options/pcr') && data.aggregation.routes.includes('/v2/market/bundle'));
    assert.deepEqual(Object.keys(data.aggregation.venues), ['sum', 'consolidated', 'single', 'mean', 'per_series']);
    assert.ok(Object.hasOwn(data.aggregation.methods, 'last_point_per_utc_day'));
    assert.deepEqual(data.server_cache.computed_routes, [
      '/v2/options/pcr',
      '/v2/options/range',
      '/v2/options/premium-tide',
      '/v2/tape/strike-heat',
      '/v2/etf/flows',
      '/v2/filings/holders',
      '/v2/gex/level-study',
    ]);
    assert.deepEqual([data.server_cache.computed_routes_seconds, data.server_cache.market_routes_seconds], [30, 30]);
    assert.deepEqual([data.level_study.route, data.level_study.definitions.length], ['/v2/gex/level-study', 7]);
    assert.match(data.level_study.cli, /^gex study levels --levels FILE/);
    assert.deepEqual(data.your_plan, {
      user_id: 'disc',
      plan: 'api_yearly',
      level: 'standard',
      burst_per_minute: 120,
      monthly_quota: 100000,
      history_days: 365,
      evaluation: true,
      history_depth_enforced: true,
    });
    assert.deepEqual(data.data_coverage.option_tickers?.BTCUSDT, { first_ts: iso(NOW - 90 * S), last_ts: iso(NOW - 30 * S) });
    assert.deepEqual(data.data_coverage.option_tickers?.SOLUSDT, { first_ts: null, last_ts: null });
    assert.deepEqual(data.data_coverage.perp_trades?.BTCUSDT, { first_ts: iso(NOW - 3600 * S), last_ts: iso(NOW - 3600 * S) });
    assert.deepEqual(Object.keys(data.data_coverage), [
      'option_tickers',
      'option_trades',
      'instruments',
      'perp_trades',
      'spot_trades',
      'perp_stats',
      'liquidations',
      'index_prices',
    ]);
    for (const k of ['envelope', 'links']) assert.ok(data[k], k);
  });

  test('/v2/meta hot path (pre-serialized, no response validation) returns the same document', async () => {
    const fast = await testApp(t.store, { responseValidation: false }, { clock: testClock(NOW) });
    const a = (await get('/v2/meta')).json<{ data: unknown }>();
    const res = await fast.inject({ url: '/v2/meta', headers: { 'x-api-key': key } });
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    const b = assertOk(res);
    assert.deepEqual(b.data, a.data);
    assert.deepEqual(Object.keys(b.meta), ['version', 'timestamp', 'request_id', 'rate_limit']);
    await fast.close();
  });

  test('/v2/endpoints: generated from the route schemas', async () => {
    const { data } = assertOk<{
      count: number;
      endpoints: { path: string; methods: string[]; tag: string; summary: string; auth: boolean; parameters: Record<string, unknown>[] }[];
    }>(await get('/v2/endpoints'));
    const paths = data.endpoints.map((e) => e.path);
    assert.deepEqual(paths, [
      '/v2/asyncapi.json',
      '/v2/changelog',
      '/v2/cot/instrument',
      '/v2/cot/markets',
      '/v2/cot/summary',
      '/v2/docs',
      '/v2/endpoints',
      '/v2/etf/flows',
      '/v2/expiries',
      '/v2/filings/holders',
      '/v2/health',
      '/v2/market/bundle',
      '/v2/market/candles',
      '/v2/market/open-interest',
      '/v2/meta',
      '/v2/openapi.json',
      '/v2/options/chain',
      '/v2/options/greeks/{greek}',
      '/v2/options/greeks/3d/surface',
      '/v2/options/greeks/surfaces/{greek}',
      '/v2/options/iv/smile',
      '/v2/options/iv/term-structure',
      '/v2/options/oi/by-expiry',
      '/v2/options/pcr',
      '/v2/options/premium-tide',
      '/v2/options/range',
      '/v2/options/venue-book',
      '/v2/redoc',
      '/v2/replay',
      '/v2/status',
      '/v2/symbols',
      '/v2/tape',
      '/v2/tape/flow-by-strike',
      '/v2/tape/recent',
      '/v2/tape/strike-heat',
    ]);
    assert.equal(data.count, 35);
    const replay = data.endpoints.find((e) => e.path === '/v2/replay');
    assert.deepEqual(
      [replay?.tag, replay?.auth, replay?.parameters.map((p) => [p['name'], p['required']])],
      [
        'replay',
        true,
        [
          ['channels', true],
          ['from', true],
          ['to', true],
          ['X-API-Key', true],
        ],
      ],
    );
    const exp = data.endpoints.find((e) => e.path === '/v2/expiries');
    assert.deepEqual(exp?.methods, ['GET']);
    assert.equal(exp?.tag, 'discovery');
    assert.equal(exp?.summary, 'Active expiries');
    assert.deepEqual(exp?.parameters, [
      {
        name: 'symbol',
        location: 'query',
        required: false,
        type: 'string',
        description: 'limit to one symbol; default all',
        enum: ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'HYPEUSDT'],
      },
      {
        name: 'venue',
        location: 'query',
        required: false,
        type: 'string',
        description: 'limit to expiries listed by one venue',
        enum: ['deribit', 'bybit', 'okx', 'binance', 'derive', 'thalex', 'delta_india', 'delta', 'bullish', 'paradex'],
      },
      {
        name: 'max_dte',
        location: 'query',
        required: false,
        type: 'integer',
        description: 'only expiries within this many days',
        minimum: 0,
        maximum: 3650,
      },
      { name: 'X-API-Key', location: 'header', required: true, type: 'string', description: 'API key, <prefix>_live_<32 characters>' },
    ]);
    const greeks = data.endpoints.find((e) => e.path === '/v2/options/greeks/{greek}');
    assert.deepEqual(
      greeks?.parameters.find((p) => p['name'] === 'greek'),
      {
        name: 'greek',
        location: 'path',
        required: true,
        type: 'string',
        description:
          'dealer greek exposure in USD (delta: usd_delta_notional; gamma: usd_delta_per_1pct_move; vega: usd_per_vol_point; theta: usd_per_day; vanna: usd_delta_per_vol_point; charm: usd_delta_per_day)',
        enum: ['delta', 'gamma', 'vega', 'theta', 'vanna', 'charm'],
      },
    );
    const health = data.endpoints.find((e) => e.path === '/v2/health');
    assert.equal(health?.auth, false);
    assert.deepEqual(health?.parameters, []);
  });

  test('/v2/changelog: newest first, breaking flags, v1 status, links', async () => {
    const { data } = assertOk<{
      current_version: string;
      v1_status: string;
      releases: { version: string; released_at: string; breaking: boolean; changes: string[] }[];
      docs_url: string;
      openapi_url: string;
    }>(await get('/v2/changelog'));
    assert.equal(data.current_version, '2.14.1');
    assert.equal(data.v1_status, 'deprecated');
    assert.equal(data.docs_url, '/v2/docs');
    assert.equal(data.openapi_url, '/v2/openapi.json');
    assert.equal(data.releases.length, 21);
    assert.equal(data.releases[0]?.version, '2.14.1');
    assert.equal(data.releases[0]?.breaking, false);
    assert.equal(data.releases[0]?.changes.length, 1);
    assert.ok(data.releases[0]?.changes[0]?.includes('`seq` still advances'));
    assert.equal(data.releases.at(-1)?.version, '2.2.0');
    const dates = data.releases.map((r) => r.released_at);
    assert.deepEqual(dates, [...dates].sort().reverse());
    assert.deepEqual(
      data.releases.filter((r) => r.breaking).map((r) => r.version),
      ['2.14.0', '2.12.0', '2.11.0', '2.10.0', '2.8.1', '2.8.0', '2.6.2', '2.6.0', '2.5.0', '2.2.0'],
    );
    const current = data.releases[1]?.changes ?? [];
    assert.equal(current.length, 12);
    assert.ok(current.at(-2)?.startsWith('`/v2/replay`'));
    assert.ok(current.at(-1)?.startsWith('WebSocket `public/replay`'));
    assert.ok(current[0]?.includes('`exchanges` -> `exchange_breakdown`'));
    assert.ok(current[1]?.includes('real daily series') && current[1].includes('never `intraday-fallback`'));
    assert.ok(current.some((c) => c.includes('`trade_count` and `notional_volume`')));
    assert.ok(current.some((c) => c.includes('`meta.extra.aggregation`')));
    assert.deepEqual(data.releases[2]?.changes, [
      'constant-maturity vol, chain over WebSocket, strike ladder, calibrated range, COT, filings',
      'fixed iv smile and premium tide 0dte',
      'two venues added to chain',
    ]);
  });

  test('/v2/symbols: categories, freshness, spot, active expiries, symbol routes', async () => {
    type Sym = {
      symbol: string;
      live_categories: string[];
      freshness_seconds: number | null;
      spot_price: number | null;
      spot_source: string | null;
      active_expiries: number;
      endpoints: string[];
      categories: { category: string; status: string; freshness_seconds: number | null }[];
    };
    const { data } = assertOk<{ symbols: Sym[] }>(await get('/v2/symbols'));
    const [btc, eth, sol] = data.symbols as [Sym, Sym, Sym, Sym];
    assert.deepEqual(btc.live_categories, ['options_chain', 'instruments', 'index']);
    assert.equal(btc.freshness_seconds, 30);
    assert.equal(btc.spot_price, 65010);
    assert.equal(btc.spot_source, 'index');
    assert.equal(btc.active_expiries, 2);
    assert.deepEqual(btc.endpoints, [
      '/v2/expiries',
      '/v2/market/bundle',
      '/v2/market/candles',
      '/v2/market/open-interest',
      '/v2/options/chain',
      '/v2/options/greeks/{greek}',
      '/v2/options/greeks/3d/surface',
      '/v2/options/greeks/surfaces/{greek}',
      '/v2/options/iv/smile',
      '/v2/options/iv/term-structure',
      '/v2/options/oi/by-expiry',
      '/v2/options/pcr',
      '/v2/options/premium-tide',
      '/v2/options/range',
      '/v2/options/venue-book',
      '/v2/status',
      '/v2/tape',
      '/v2/tape/flow-by-strike',
      '/v2/tape/recent',
      '/v2/tape/strike-heat',
    ]);
    assert.deepEqual(
      btc.categories.find((c) => c.category === 'perp_trades'),
      { category: 'perp_trades', status: 'stale', last_ts: iso(NOW - 3600 * S), freshness_seconds: 3600 },
    );
    assert.deepEqual(eth.live_categories, []);
    assert.equal(eth.freshness_seconds, 200);
    assert.equal(eth.spot_price, 3500);
    assert.equal(eth.spot_source, 'option_tickers');
    assert.equal(eth.active_expiries, 1);
    assert.equal(sol.spot_price, null);
    assert.equal(sol.freshness_seconds, null);
    assert.equal(sol.active_expiries, 0);
    assert.ok(sol.categories.every((c) => c.status === 'missing'));
  });

  test('/v2/expiries: tokens, DTE, venues, filters', async () => {
    type E = { token: string; date: string; expiry_ts: string; dte: number; venues: string[]; instruments: number };
    const { data } = assertOk<{ symbols: { symbol: string; count: number; expiries: E[] }[] }>(await get('/v2/expiries?symbol=BTCUSDT'));
    assert.equal(data.symbols.length, 1);
    assert.deepEqual(data.symbols[0]?.expiries, [
      { token: expiryToken(EXP1), date: iso(EXP1).slice(0, 10), expiry_ts: iso(EXP1), dte: 2, venues: ['deribit'], instruments: 1 },
      {
        token: expiryToken(EXP2),
        date: iso(EXP2).slice(0, 10),
        expiry_ts: iso(EXP2),
        dte: Math.round(((EXP2 - NOW) / DAY) * 100) / 100,
        venues: ['deribit', 'okx'],
        instruments: 3,
      },
    ]);
    const near = assertOk<{ symbols: { expiries: E[] }[] }>(await get('/v2/expiries?symbol=BTCUSDT&max_dte=10')).data;
    assert.deepEqual(
      near.symbols[0]?.expiries.map((e) => e.dte),
      [2],
    );
    const okx = assertOk<{ symbols: { expiries: E[] }[] }>(await get('/v2/expiries?symbol=BTCUSDT&venue=okx')).data;
    assert.deepEqual(
      okx.symbols[0]?.expiries.map((e) => e.venues),
      [['deribit', 'okx']],
    );
    const all = assertOk<{ symbols: { symbol: string; count: number }[] }>(await get('/v2/expiries')).data;
    assert.deepEqual(
      all.symbols.map((s) => [s.symbol, s.count]),
      [
        ['BTCUSDT', 2],
        ['ETHUSDT', 1],
        ['SOLUSDT', 0],
        ['HYPEUSDT', 0],
      ],
    );
  });

  test('expiry tokens', () => {
    assert.equal(expiryToken(Date.UTC(2024, 11, 27, 8)), '27DEC24');
    assert.equal(expiryToken(Date.UTC(2025, 0, 3, 8)), '3JAN25');
  });

  test('/v2/status: fresh / stale / missing per symbol and category', async () => {
    type C = {
      category: string;
      table: string;
      status: string;
      last_ts: string | null;
      age_seconds: number | null;
      fresh_within_seconds: number;
    };
    const { data } = assertOk<{ symbols: { symbol: string; status: string; categories: C[] }[] }>(await get('/v2/status'));
    assert.deepEqual(
      data.symbols.map((s) => [s.symbol, s.status]),
      [
        ['BTCUSDT', 'stale'],
        ['ETHUSDT', 'stale'],
        ['SOLUSDT', 'missing'],
        ['HYPEUSDT', 'missing'],
      ],
    );
    const btc = data.symbols[0]?.categories ?? [];
    assert.deepEqual(
      btc.find((c) => c.category === 'options_chain'),
      {
        category: 'options_chain',
        table: 'option_tickers',
        status: 'fresh',
        last_ts: iso(NOW - 30 * S),
        age_seconds: 30,
        fresh_within_seconds: 120,
      },
    );
    assert.deepEqual(
      btc.find((c) => c.category === 'liquidations'),
      { category: 'liquidations', table: 'liquidations', status: 'missing', last_ts: null, age_seconds: null, fresh_within_seconds: 86400 },
    );
    const one = assertOk<{ symbols: { symbol: string }[] }>(await get('/v2/status?symbol=SOLUSDT')).data;
    assert.deepEqual(
      one.symbols.map((s) => s.symbol),
      ['SOLUSDT'],
    );
  });

  // Validity as OpenAPI 3.1 and every answer against the document: openapi-responses.test.ts (the app with every family).
  test('/v2/openapi.json: version 2.0.0, security scheme, public routes', async () => {
    const res = await app.inject({ url: '/v2/openapi.json' });
    assert.equal(res.statusCode, 200);
    const doc = res.json<{
      openapi: string;
      info: { version: string };
      paths: Record<string, { get: { security?: unknown[]; responses: Record<string, unknown> } }>;
      components: { securitySchemes: unknown };
    }>();
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, '2.0.0');
    assert.deepEqual(doc.components.securitySchemes, { ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key' } });
    for (const p of ['/v2/health', '/v2/openapi.json', '/v2/docs', '/v2/redoc']) assert.deepEqual(doc.paths[p]?.get.security, [], p);
    assert.equal(doc.paths['/v2/meta']?.get.security, undefined);
    assert.deepEqual(Object.keys(doc.paths['/v2/meta']?.get.responses ?? {}).sort(), [
      '200',
      '401',
      '403',
      '404',
      '422',
      '429',
      '500',
      '503',
    ]);
  });

  test('/v2/docs and /v2/redoc are served from local assets', async () => {
    const ui = await app.inject({ url: '/v2/docs' });
    assert.equal(ui.statusCode, 200);
    assert.match(ui.body, /swagger-ui/);
    const bundle = await app.inject({ url: '/v2/docs/static/swagger-ui-bundle.js' });
    assert.equal(bundle.statusCode, 200);
    assert.ok(bundle.body.length > 100_000);
    const spec = await app.inject({ url: '/v2/docs/json' });
    assert.equal(spec.json<{ info: { version: string } }>().info.version, '2.0.0');
    const redoc = await app.inject({ url: '/v2/redoc' });
    assert.equal(redoc.statusCode, 200);
    assert.match(String(redoc.headers['content-type']), /^text\/html/);
    assert.match(redoc.body, /<script src="\/v2\/redoc\/redoc.standalone.js"><\/script>/);
    assert.doesNotMatch(redoc.body, /https?:\/\//);
    const js = await app.inject({ url: '/v2/redoc/redoc.standalone.js' });
    assert.equal(js.statusCode, 200);
    assert.match(String(js.headers['content-type']), /^application\/javascript/);
    assert.ok(js.body.length > 500_000);
  });
});
