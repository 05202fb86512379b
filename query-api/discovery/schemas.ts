import { z } from 'zod';
import { SYMBOLS, VENUES } from '#schemas/events.ts';
import { LEVELS } from '../accounts/plans.ts';
import { ERROR_CODE_NAMES } from '../envelope/errors.ts';
import { intParam, symbolParam } from '../params/param-schemas.ts';

/** Response (and query) schemas of the discovery routes. */

const iso = z.string().describe('ISO-8601 instant');

export const healthData = z.object({
  status: z
    .enum(['ok', 'degraded', 'unhealthy'])
    .describe('ok: all healthy; degraded: one subsystem failing; unhealthy: cache and database both failing'),
  cache: z.boolean().describe('snapshot cache healthy'),
  database: z.boolean().describe('ClickHouse answers'),
  checks: z.object({
    cache: z.object({ ok: z.boolean(), age_seconds: z.number().nullable() }),
    database: z.object({ ok: z.boolean(), latency_ms: z.number() }),
  }),
  version: z.string(),
});

const limitValue = z.number().int().nullable().describe('null = unlimited');

export const rateLimitRow = z.object({
  plan: z.string(),
  level: z.enum(LEVELS),
  billing: z.string(),
  burst_per_minute: limitValue,
  monthly_quota: limitValue,
  history_days: limitValue,
  description: z.string(),
});

export const coverageEntry = z.object({ first_ts: iso.nullable(), last_ts: iso.nullable() });

export const metaData = z.object({
  service: z.string(),
  api_version: z.string(),
  response_version: z.string(),
  current_release: z.string(),
  symbols: z.array(z.object({ symbol: z.enum(SYMBOLS), base: z.string() })),
  venues: z.array(z.enum(VENUES)),
  error_codes: z.array(z.object({ code: z.enum(ERROR_CODE_NAMES), http_status: z.number().int(), when: z.string() })),
  auth: z.object({
    type: z.literal('apiKey'),
    header: z.string(),
    key_format: z.string(),
    public_paths: z.array(z.string()),
    notes: z.array(z.string()),
  }),
  rate_limits: z.object({
    plans: z.array(rateLimitRow),
    health_per_ip_per_minute: z.number().int(),
    window: z.string(),
    quota_period: z.string(),
    headers: z.array(z.string()),
  }),
  envelope: z.object({
    success: z.record(z.string(), z.string()),
    error: z.record(z.string(), z.string()),
    meta: z.record(z.string(), z.string()),
  }),
  links: z.record(z.string(), z.string()),
  history_depth: z.object({
    levels: z.array(z.object({ level: z.enum(LEVELS), history_days: limitValue })),
    enforced_for: z.string(),
    applies_to: z.array(z.string()).describe('how the window bounds each kind of route'),
  }),
  aggregation: z
    .object({
      shape: z.string(),
      routes: z.array(z.string()),
      venues: z.record(z.string(), z.string()),
      methods: z.record(z.string(), z.string()),
    })
    .describe('vocabulary of meta.extra.aggregation'),
  level_study: z
    .object({ route: z.string(), cli: z.string(), definitions: z.array(z.string()) })
    .describe('the exact definitions of /v2/gex/level-study and `gex study levels`'),
  server_cache: z
    .object({
      computed_routes: z.array(z.string()),
      computed_routes_seconds: z.number(),
      market_routes_seconds: z.number(),
      headers: z.array(z.string()),
      notes: z.array(z.string()),
    })
    .describe('the response cache of the computed routes (worst-case age of an answer)'),
  websocket: z
    .object({
      path: z.string(),
      protocol: z.string(),
      auth: z.array(z.string()),
      connection_caps: z.array(z.object({ level: z.string(), max_connections: z.number().int() })),
      cap_rules: z.array(z.string()),
      methods: z.array(z.string()),
      channels: z.array(z.object({ name: z.string(), status: z.string(), description: z.string() })),
      close_codes: z.array(z.object({ code: z.number().int(), reason: z.string() })),
      rpc_error_codes: z.record(z.string(), z.number().int()),
      max_subscriptions_per_connection: z.number().int(),
      replay: z
        .object({
          methods: z.record(z.string(), z.string()),
          notifications: z.record(z.string(), z.string()),
          concurrent_caps: z.array(z.object({ level: z.string(), max_replays: z.number().int() })),
          max_channels: z.number().int(),
          speed: z.object({ default: z.string(), min: z.number(), max: z.number() }),
          flow_control: z.array(z.string()),
        })
        .describe('public/replay: the stored history of feed channels over the connection (GET /v2/replay is the same stream as NDJSON)'),
      notes: z.array(z.string()),
    })
    .describe('the WebSocket feed /v2/ws (see /v2/asyncapi.json)'),
  your_plan: z.object({
    user_id: z.string(),
    plan: z.string(),
    level: z.enum(LEVELS),
    burst_per_minute: limitValue,
    monthly_quota: limitValue,
    history_days: limitValue,
    evaluation: z.boolean(),
    history_depth_enforced: z.boolean(),
  }),
  data_coverage: z.record(z.string(), z.record(z.string(), coverageEntry)).describe('raw table -> symbol -> first/last event time'),
});

export const endpointParam = z.object({
  name: z.string(),
  location: z.enum(['query', 'path', 'header']),
  required: z.boolean(),
  type: z.string(),
  description: z.string().nullable(),
  default: z.unknown().optional(),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  enum: z.array(z.unknown()).optional(),
});

export const endpointEntry = z.object({
  path: z.string(),
  methods: z.array(z.string()),
  tag: z.string(),
  summary: z.string(),
  description: z.string(),
  auth: z.boolean(),
  parameters: z.array(endpointParam),
});

export const endpointsData = z.object({ count: z.number().int(), endpoints: z.array(endpointEntry) });

export const changelogData = z.object({
  current_version: z.string(),
  v1_status: z.enum(['stable', 'deprecated', 'sunset']),
  releases: z.array(
    z.object({
      version: z.string(),
      released_at: z.string(),
      summary: z.string(),
      breaking: z.boolean().default(false),
      changes: z.array(z.string()),
    }),
  ),
  docs_url: z.string(),
  openapi_url: z.string(),
});

const freshness = z.enum(['fresh', 'stale', 'missing']);

export const symbolsData = z.object({
  symbols: z.array(
    z.object({
      symbol: z.enum(SYMBOLS),
      base: z.string(),
      live_categories: z.array(z.string()).describe('categories with fresh data'),
      categories: z.array(
        z.object({ category: z.string(), status: freshness, last_ts: iso.nullable(), freshness_seconds: z.number().nullable() }),
      ),
      freshness_seconds: z.number().nullable().describe('age of the newest option ticker'),
      spot_price: z.number().nullable(),
      spot_source: z.string().nullable(),
      active_expiries: z.number().int(),
      endpoints: z.array(z.string()).describe('paths accepting `symbol`'),
    }),
  ),
});

export const expiriesQuery = z.object({
  symbol: symbolParam.optional().describe('limit to one symbol; default all'),
  venue: z
    .enum(VENUES, { error: `must be one of ${VENUES.join(', ')}` })
    .optional()
    .describe('limit to expiries listed by one venue'),
  max_dte: intParam(0, 3650).optional().describe('only expiries within this many days'),
});

export const expiriesData = z.object({
  symbols: z.array(
    z.object({
      symbol: z.enum(SYMBOLS),
      count: z.number().int(),
      expiries: z.array(
        z.object({
          token: z.string().describe("venue-style token, e.g. '27DEC24'"),
          date: z.string().describe('YYYY-MM-DD (UTC)'),
          expiry_ts: iso,
          dte: z.number().describe('days to expiry (fractional)'),
          venues: z.array(z.string()),
          instruments: z.number().int(),
        }),
      ),
    }),
  ),
});

export const symbolQuery = z.object({ symbol: symbolParam.optional().describe('limit to one symbol; default all') });

export const statusData = z.object({
  symbols: z.array(
    z.object({
      symbol: z.enum(SYMBOLS),
      status: freshness,
      categories: z.array(
        z.object({
          category: z.string(),
          table: z.string(),
          status: freshness,
          last_ts: iso.nullable(),
          age_seconds: z.number().nullable(),
          fresh_within_seconds: z.number().int(),
        }),
      ),
    }),
  ),
});
