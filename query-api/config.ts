import { z } from 'zod';

/**
 * Settings of the query API (the `api` role) beyond the shared table in ops/config/settings.ts. Same row shape
 * as SETTINGS there (env, flag, schema, default, description) so the rows can be moved into that table as is.
 * Precedence: flag > environment > default.
 */

const positiveInt = z.coerce.number().int().positive();
const port = z.coerce.number().int().min(0).max(65535);
const bool = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0', 'yes', 'no'])])
  .transform((v) => v === true || v === 'true' || v === '1' || v === 'yes');
/** A positive integer, or `unlimited` (null). */
const limit = z
  .union([z.literal('unlimited'), z.coerce.number().int().positive()])
  .transform((v) => (v === 'unlimited' ? null : v));

interface ApiSettingSpec {
  readonly env: string;
  readonly flag: string;
  readonly schema: z.ZodType;
  readonly default: string | undefined;
  readonly description: string;
}

export const API_SETTINGS = {
  apiKeyPrefix: { env: 'API_KEY_PREFIX', flag: 'api-key-prefix', schema: z.string().regex(/^[a-z][a-z0-9]{0,15}$/), default: 'gex', description: 'Prefix of API keys: <prefix>_live_<32 chars>.' },
  redisUrl: { env: 'REDIS_URL', flag: 'redis-url', schema: z.string().regex(/^rediss?:\/\//).optional(), default: undefined, description: 'Redis holding the shared rate-limit and quota counters. Unset: in-process counters.' },
  redisKeyPrefix: { env: 'REDIS_KEY_PREFIX', flag: 'redis-key-prefix', schema: z.string().max(64), default: 'gex:', description: 'Prefix of the Redis keys of the API.' },
  redisTimeoutMs: { env: 'REDIS_TIMEOUT_MS', flag: 'redis-timeout-ms', schema: positiveInt, default: '50', description: 'Redis command timeout; beyond it the stricter in-process fallback counter is used.' },
  rateLimitFallbackFactor: { env: 'RATE_LIMIT_FALLBACK_FACTOR', flag: 'rate-limit-fallback-factor', schema: z.coerce.number().gt(0).max(1), default: '0.5', description: 'Per-minute cap of the per-machine fallback counter, as a fraction of the plan cap.' },
  adminPort: { env: 'ADMIN_PORT', flag: 'admin-port', schema: port, default: '8081', description: 'Loopback-only admin endpoint of the api role (gex keys / gex users talk to it). 0 = any free port.' },
  accountsRefreshMs: { env: 'ACCOUNTS_REFRESH_MS', flag: 'accounts-refresh-ms', schema: positiveInt, default: '10000', description: 'How often the API reloads users and API keys from ClickHouse (revocations take effect within this).' },
  usageFlushMs: { env: 'USAGE_FLUSH_MS', flag: 'usage-flush-ms', schema: positiveInt, default: '5000', description: 'How often metered usage is appended to usage_events.' },
  discoveryCacheMs: { env: 'DISCOVERY_CACHE_MS', flag: 'discovery-cache-ms', schema: positiveInt, default: '10000', description: 'Cache lifetime of the store-derived discovery data (/v2/symbols, /v2/status, /v2/expiries, data_coverage).' },
  healthPerIpPerMinute: { env: 'HEALTH_RATE_LIMIT', flag: 'health-rate-limit', schema: positiveInt, default: '60', description: 'Requests per minute per client IP on /v2/health.' },
  trustProxy: { env: 'TRUST_PROXY', flag: 'trust-proxy', schema: bool, default: 'false', description: 'Take the client IP from X-Forwarded-For (behind a load balancer).' },
  responseValidation: { env: 'RESPONSE_VALIDATION', flag: 'response-validation', schema: bool, default: 'false', description: 'Validate every response against its zod schema (on in tests and CI; costs CPU per response).' },
  publicBaseUrl: { env: 'PUBLIC_BASE_URL', flag: 'public-base-url', schema: z.string().max(512), default: '', description: 'Absolute base URL used in links (docs_url, openapi_url). Empty: relative links.' },
  quotaStarter: { env: 'QUOTA_STARTER', flag: 'quota-starter', schema: limit, default: '10000', description: 'Monthly request quota of level starter (or "unlimited").' },
  quotaStandard: { env: 'QUOTA_STANDARD', flag: 'quota-standard', schema: limit, default: '100000', description: 'Monthly request quota of level standard.' },
  quotaPro: { env: 'QUOTA_PRO', flag: 'quota-pro', schema: limit, default: '500000', description: 'Monthly request quota of level pro.' },
  quotaEnterprise: { env: 'QUOTA_ENTERPRISE', flag: 'quota-enterprise', schema: limit, default: 'unlimited', description: 'Monthly request quota of level enterprise.' },
  historyDaysStarter: { env: 'HISTORY_DAYS_STARTER', flag: 'history-days-starter', schema: limit, default: '30', description: 'History window (days) of level starter (or "unlimited").' },
  historyDaysStandard: { env: 'HISTORY_DAYS_STANDARD', flag: 'history-days-standard', schema: limit, default: '365', description: 'History window (days) of level standard.' },
  historyDaysPro: { env: 'HISTORY_DAYS_PRO', flag: 'history-days-pro', schema: limit, default: '1095', description: 'History window (days) of level pro.' },
  historyDaysEnterprise: { env: 'HISTORY_DAYS_ENTERPRISE', flag: 'history-days-enterprise', schema: limit, default: 'unlimited', description: 'History window (days) of level enterprise.' },
} as const satisfies Record<string, ApiSettingSpec>;

export type ApiSettingKey = keyof typeof API_SETTINGS;
export type ApiConfig = { readonly [K in ApiSettingKey]: z.output<(typeof API_SETTINGS)[K]['schema']> };

export class ApiConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid API configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ApiConfigError';
  }
}

/** Reads the API settings from flags, then the environment, then the defaults. Throws ApiConfigError. */
export function loadApiConfig(env: NodeJS.ProcessEnv = process.env, flags: ReadonlyMap<string, string> = new Map()): ApiConfig {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [key, spec] of Object.entries(API_SETTINGS) as [ApiSettingKey, ApiSettingSpec][]) {
    const raw = flags.get(spec.flag) ?? env[spec.env] ?? spec.default;
    const parsed = spec.schema.safeParse(raw === '' && spec.default === undefined ? undefined : raw);
    if (parsed.success) out[key] = parsed.data;
    else problems.push(`${spec.env} / --${spec.flag} = ${JSON.stringify(raw)}: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
  }
  if (problems.length > 0) throw new ApiConfigError(problems);
  return out as ApiConfig;
}

/** Defaults with overrides: for tests and the bench. */
export function apiConfig(overrides: Partial<ApiConfig> = {}): ApiConfig {
  return { ...loadApiConfig({}), ...overrides };
}
