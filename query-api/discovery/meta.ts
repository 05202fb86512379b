import { SYMBOL_BASE, SYMBOLS, VENUES } from '#schemas/events.ts';
import { LEVELS, levelLimits, rateLimitLadder } from '../accounts/plans.ts';
import { RAW_TABLES } from './categories.ts';
import type { Coverage } from './market-data.ts';
import { CURRENT_RELEASE } from './changelog-data.ts';
import { RESPONSE_VERSION } from '../envelope/envelope.ts';
import { ApiError, ERROR_CODES, ERROR_CODE_NAMES } from '../envelope/errors.ts';
import { OPENAPI_VERSION } from '../plugins/docs.ts';
import { metaData } from './schemas.ts';
import { responses } from '../envelope/envelope-schemas.ts';
import type { ApiInstance } from '../types.ts';
import { TAG, type DiscoveryContext } from './context.ts';
import { websocketMeta } from '../ws/catalog.ts';
import { AGGREGATION_METHODS, AGGREGATION_ROUTES, AGGREGATION_VENUES } from '../envelope/aggregation.ts';
import { ROUTE_CACHE_PATHS } from '../cache/route-cache.ts';
import { LEVEL_STUDY_DEFINITIONS } from '#processors/analytics/level-study.ts';

type CoverageView = Record<string, Record<string, { first_ts: string | null; last_ts: string | null }>>;

function coverageView(coverage: Coverage): { readonly value: CoverageView; readonly json: string } {
  const value: CoverageView = {};
  for (const table of RAW_TABLES) {
    const bySymbol = coverage.get(table);
    value[table] = Object.fromEntries(
      SYMBOLS.map((s) => {
        const c = bySymbol?.get(s);
        return [s, { first_ts: iso(c?.firstMs), last_ts: iso(c?.lastMs) }];
      }),
    );
  }
  return { value, json: JSON.stringify(value) };
}

const PUBLIC_PATHS = ['/v2/openapi.json', '/v2/docs', '/v2/redoc', '/v2/health'];
const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString());

/** GET /v2/meta: static catalogs plus the caller's plan and the data coverage of the raw tables. */
export async function metaRoute(app: ApiInstance, ctx: DiscoveryContext): Promise<void> {
  const { config } = ctx;
  const fixed = {
    service: 'gex-analytics',
    api_version: OPENAPI_VERSION,
    response_version: RESPONSE_VERSION,
    current_release: CURRENT_RELEASE,
    symbols: SYMBOLS.map((symbol) => ({ symbol, base: SYMBOL_BASE[symbol] })),
    venues: [...VENUES],
    error_codes: ERROR_CODE_NAMES.map((code) => ({ code, http_status: ERROR_CODES[code].status, when: ERROR_CODES[code].when })),
    auth: {
      type: 'apiKey' as const,
      header: 'X-API-Key',
      key_format: `${config.apiKeyPrefix}_live_<32 alphanumeric characters>`,
      public_paths: PUBLIC_PATHS,
      notes: [
        'missing or invalid key: 401 UNAUTHORIZED; a leading or trailing space makes the value invalid',
        'valid key without an active subscription (trialing, lapsed, canceled, ...): 403 FORBIDDEN',
        "limits are per user, shared across the user's keys",
      ],
    },
    rate_limits: {
      plans: rateLimitLadder(config).map((r) => ({ ...r })),
      health_per_ip_per_minute: config.healthPerIpPerMinute,
      window: 'fixed UTC minute',
      quota_period: 'UTC calendar month',
      headers: [
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-RateLimit-Reset',
        'X-Quota-Limit',
        'X-Quota-Remaining',
        'X-Quota-Reset',
        'X-RateLimit-Fallback',
        'Retry-After',
      ],
    },
    envelope: {
      success: { success: 'boolean true', data: 'object, endpoint specific', meta: 'object' },
      error: {
        success: 'boolean false',
        'error.code': 'string, see error_codes',
        'error.message': 'string',
        'error.details': 'object, optional',
        meta: 'object with version and timestamp',
      },
      meta: {
        version: `string, "${RESPONSE_VERSION}"`,
        timestamp: 'ISO-8601 instant',
        request_id: 'equals the X-Request-ID header',
        symbol: 'string, optional',
        spot_price: 'number, optional',
        computed_at: 'ISO-8601 instant of the snapshot, optional',
        freshness_seconds: 'number, optional',
        source: 'array of venues, optional',
        exchanges_filtered: 'array of venues, optional',
        rate_limit: 'per-minute limit, remaining, reset, optional',
        history_depth_enforced: 'boolean, optional',
        extra: 'object, endpoint specific, optional',
      },
    },
    links: {
      docs: ctx.link('/v2/docs'),
      redoc: ctx.link('/v2/redoc'),
      openapi: ctx.link('/v2/openapi.json'),
      asyncapi: ctx.link('/v2/asyncapi.json'),
      endpoints: ctx.link('/v2/endpoints'),
      changelog: ctx.link('/v2/changelog'),
      symbols: ctx.link('/v2/symbols'),
      status: ctx.link('/v2/status'),
      health: ctx.link('/v2/health'),
    },
    history_depth: {
      levels: LEVELS.map((level) => ({ level, history_days: levelLimits(config, level).historyDays })),
      enforced_for: 'evaluation keys only; for paid plans the clamp is reported in meta.extra.history_clamp but not enforced',
      applies_to: [
        'windows (hours, days, from/to, market lookbacks, tape pages): the window is clamped to the plan window',
        'as_of: the instant is clamped to the plan window',
        'dated series (/v2/etf/flows, /v2/cot/summary, /v2/cot/instrument): days or weeks before the plan window are not served and no figure (cumulatives, percentiles, z-scores) is computed from them; the requested window starts at the first stored date (or the span before the newest week)',
      ],
    },
    aggregation: {
      shape:
        '{venues, interval, method, series?}: interval is the bucket width of a point (null when the answer is not bucketed in time); series maps each bundle series to its method',
      routes: [...AGGREGATION_ROUTES],
      venues: { ...AGGREGATION_VENUES },
      methods: { ...AGGREGATION_METHODS },
    },
    level_study: {
      route: '/v2/gex/level-study',
      cli: 'gex study levels --levels FILE [--horizon 4h] [--step 30m] [--from ISO] [--to ISO]',
      definitions: [...LEVEL_STUDY_DEFINITIONS],
    },
    server_cache: {
      computed_routes: [...ROUTE_CACHE_PATHS],
      computed_routes_seconds: config.routeCacheMs / 1000,
      market_routes_seconds: config.marketCacheMs / 1000,
      headers: ['X-Cache (HIT or MISS) and Age (seconds since the answer was computed) on the computed routes'],
      notes: [
        'keyed by every parameter that changes the answer, the window read and the plan history policy; the per-request meta (timestamp, request_id, rate_limit) is never cached',
        'GEX, chain and greek routes answer from the stored 30 s snapshot and are rendered once per snapshot instead',
      ],
    },
    websocket: websocketMeta(config.rateLimitFallbackFactor),
  };

  const fixedJsonHead = JSON.stringify(fixed).slice(0, -1);
  const coverageViews = new WeakMap<Coverage, { readonly value: CoverageView; readonly json: string }>();

  app.get('/v2/meta', {
    schema: {
      tags: [TAG],
      summary: 'Service metadata',
      description:
        'Symbol and venue catalogs, error codes with HTTP mapping, auth scheme, rate-limit ladder, envelope shape, links, history depth, your plan and the data coverage of the raw tables.',
      response: responses(metaData, { auth: true }),
    },
    handler: async (request, reply) => {
      const account = request.account;
      const ent = request.entitlement;
      if (account === null || ent === null) throw new ApiError('UNAUTHORIZED', 'missing X-API-Key header');
      const coverage = await ctx.market.coverage();
      let data_coverage = coverageViews.get(coverage);
      if (data_coverage === undefined) {
        data_coverage = coverageView(coverage);
        coverageViews.set(coverage, data_coverage);
      }
      const your_plan = {
        user_id: account.userId,
        plan: ent.plan,
        level: ent.level,
        burst_per_minute: ent.burstPerMinute,
        monthly_quota: ent.monthlyQuota,
        history_days: ent.historyDays,
        evaluation: account.evaluation,
        history_depth_enforced: account.evaluation,
      };
      if (config.responseValidation) return ctx.respond.ok(request, { ...fixed, your_plan, data_coverage: data_coverage.value });
      // Hot path: the static part and the coverage are serialized once, only your_plan per request.
      const json = `${fixedJsonHead},"your_plan":${JSON.stringify(your_plan)},"data_coverage":${data_coverage.json}}`;
      // A string body bypasses the serializer; the typed reply expects the envelope object.
      return reply.type('application/json; charset=utf-8').send(ctx.respond.okJson(request, { json }) as never);
    },
  });
}
