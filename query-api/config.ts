import { loadConfig, type Config } from '#platform/settings.ts';

/**
 * The settings of the query API (the `api` role): a slice of the product's settings table
 * (platform/settings.ts, where each row has its variable, flag, default and description; `gex --help` lists
 * them). Precedence: flag > environment > default.
 */
export const API_SETTING_KEYS = [
  'apiKeyPrefix',
  'redisUrl',
  'redisKeyPrefix',
  'redisTimeoutMs',
  'rateLimitFallbackFactor',
  'adminPort',
  'accountsRefreshMs',
  'usageFlushMs',
  'discoveryCacheMs',
  'marketCacheMs',
  'routeCacheMs',
  'storeReadTimeoutMs',
  'storeBreakerFailures',
  'storeBreakerProbeMs',
  'tapeTailRows',
  'tapeTailReconcileMs',
  'liveFlowTrades',
  'liveFlowReconcileMs',
  'healthPerIpPerMinute',
  'tlsCertFile',
  'tlsKeyFile',
  'trustProxy',
  'httpBodyLimitBytes',
  'httpMaxHeaderBytes',
  'httpHeadersTimeoutMs',
  'httpRequestTimeoutMs',
  'httpKeepAliveTimeoutMs',
  'responseValidation',
  'publicBaseUrl',
  'quotaStarter',
  'quotaStandard',
  'quotaPro',
  'quotaEnterprise',
  'historyDaysStarter',
  'historyDaysStandard',
  'historyDaysPro',
  'historyDaysEnterprise',
  'replayThread',
  'replayLowersV8Workers',
  'replayStopsPretenuring',
] as const;

export type ApiSettingKey = (typeof API_SETTING_KEYS)[number];
export type ApiConfig = Pick<Config, ApiSettingKey>;

export function pickApiConfig(config: Config): ApiConfig {
  const out: Partial<Record<ApiSettingKey, unknown>> = {};
  for (const k of API_SETTING_KEYS) out[k] = config[k];
  return out as ApiConfig;
}

/** Reads the API settings from flags, then the environment, then the defaults. Throws ConfigError. */
export function loadApiConfig(env: NodeJS.ProcessEnv = process.env, flags: ReadonlyMap<string, string> = new Map()): ApiConfig {
  return pickApiConfig(loadConfig(env, flags));
}

/** Defaults with overrides: for tests and the bench. */
export function apiConfig(overrides: Partial<ApiConfig> = {}): ApiConfig {
  return { ...loadApiConfig({}), ...overrides };
}
