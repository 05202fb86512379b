import { z } from 'zod';
import { SYMBOLS, VENUES } from '#schemas/events.ts';
import { LOG_FORMAT_SETTINGS } from './log-format.ts';

/**
 * Every setting of the product: one row each, with its environment variable, its command-line flag, its
 * default and what it does. `gex --help` prints this table; the README's configuration table is generated from it
 * (settingsMarkdown, written by `npm run docs`, checked by tools/docs/generated-sections.test.ts).
 * Precedence: flag > environment > default. Values are validated with zod; an invalid value stops the process
 * with the setting's name and the reason.
 */

const csv = <T extends string>(allowed: readonly T[]) =>
  z
    .string()
    .transform((s) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter((x) => x.length > 0),
    )
    .pipe(z.array(z.enum(allowed as [T, ...T[]])).min(1));

const optionalCsv = z
  .string()
  .transform((s) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter((x) => x.length > 0),
  )
  .optional();

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();
/** A positive integer, or `unlimited` (null). */
const limit = z.union([z.literal('unlimited'), z.coerce.number().int().positive()]).transform((v) => (v === 'unlimited' ? null : v));
const bool = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0', 'yes', 'no'])])
  .transform((v) => v === true || v === 'true' || v === '1' || v === 'yes');

export interface SettingSpec {
  readonly env: string;
  readonly flag: string;
  readonly schema: z.ZodType;
  /** Default as the user would write it (string form), or undefined when unset means "off". */
  readonly default: string | undefined;
  readonly description: string;
}

export const SETTINGS = {
  kafkaBrokers: {
    env: 'KAFKA_BROKERS',
    flag: 'kafka-brokers',
    schema: optionalCsv,
    default: undefined,
    description: 'Comma-separated Kafka bootstrap brokers. Unset: the in-process bus (embedded default).',
  },
  kafkaClientId: {
    env: 'KAFKA_CLIENT_ID',
    flag: 'kafka-client-id',
    schema: z.string().min(1),
    default: 'gex',
    description: 'Kafka client id prefix.',
  },
  topicPartitions: {
    env: 'TOPIC_PARTITIONS',
    flag: 'topic-partitions',
    schema: positiveInt,
    default: '6',
    description: 'Partitions per topic when the product creates its topics.',
  },
  clickhouseUrl: {
    env: 'CLICKHOUSE_URL',
    flag: 'clickhouse-url',
    schema: z.url().optional(),
    default: undefined,
    description: 'ClickHouse server HTTP URL. Unset: embedded chDB under DATA_DIR.',
  },
  clickhouseUser: {
    env: 'CLICKHOUSE_USER',
    flag: 'clickhouse-user',
    schema: z.string(),
    default: 'default',
    description: 'ClickHouse user (server only).',
  },
  clickhousePassword: {
    env: 'CLICKHOUSE_PASSWORD',
    flag: 'clickhouse-password',
    schema: z.string(),
    default: '',
    description: 'ClickHouse password (server only).',
  },
  clickhouseDatabase: {
    env: 'CLICKHOUSE_DATABASE',
    flag: 'clickhouse-database',
    schema: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/),
    default: 'default',
    description: 'ClickHouse database.',
  },
  storeReadSessions: {
    env: 'STORE_READ_SESSIONS',
    flag: 'store-read-sessions',
    schema: positiveInt,
    default: '2',
    description:
      "Embedded store: chDB sessions that run the process's reads, in parallel with each other and with its writes (a chDB session runs one query at a time). Each running read holds a thread of libuv's pool (UV_THREADPOOL_SIZE, 4 by default). A server (CLICKHOUSE_URL) takes concurrent requests: no effect there.",
  },
  clickhouseHttpPort: {
    env: 'CLICKHOUSE_HTTP_PORT',
    flag: 'clickhouse-http-port',
    schema: z.union([z.enum(['auto', 'off']), port]),
    default: 'auto',
    description:
      'Port of the ClickHouse-compatible HTTP endpoint that a process holding the embedded store serves (SQL on the running store: gex sql, curl, Grafana). auto = 8123, or any free port when 8123 is taken (the process says which; gex sql finds it); a number = that port, the start fails if it is taken (0 = any free port); off = no endpoint.',
  },
  clickhouseHttpHost: {
    env: 'CLICKHOUSE_HTTP_HOST',
    flag: 'clickhouse-http-host',
    schema: z.string().min(1),
    default: '127.0.0.1',
    description: 'Address of the ClickHouse-compatible HTTP endpoint (loopback by default: only this machine can query it).',
  },
  clickhouseHttpAdminToken: {
    env: 'CLICKHOUSE_HTTP_ADMIN_TOKEN',
    flag: 'clickhouse-http-admin-token',
    schema: z.string().min(16).optional(),
    default: undefined,
    description:
      'Password of user admin on the HTTP endpoint (may write: other product processes use it through CLICKHOUSE_URL). Unset: read-only users only.',
  },
  clickhouseCluster: {
    env: 'CLICKHOUSE_CLUSTER',
    flag: 'clickhouse-cluster',
    schema: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
      .optional(),
    default: undefined,
    description:
      'Run the migrations as their replicated variant ON CLUSTER this cluster (Replicated*MergeTree + Distributed tables; clickhouse/README.md "Cluster schema"). Server only. Unset: single node.',
  },
  dataDir: {
    env: 'DATA_DIR',
    flag: 'data-dir',
    schema: z.string().min(1),
    default: './data',
    description:
      'Data directory: the embedded store (one process per directory) and the ingest publish spool (ingest-spool/). Put it on a journaled file system: on ext4 without a journal every part the store writes costs more (clickhouse/README.md "File system"; the store warns at start).',
  },
  host: { env: 'HOST', flag: 'host', schema: z.string().min(1), default: '127.0.0.1', description: 'Address the API listens on.' },
  port: { env: 'PORT', flag: 'port', schema: port, default: '8080', description: 'Port of the /v2 API.' },
  metricsPort: {
    env: 'METRICS_PORT',
    flag: 'metrics-port',
    schema: port,
    default: '9464',
    description: 'Port of the Prometheus /metrics endpoint (0 = any free port).',
  },
  symbols: {
    env: 'SYMBOLS',
    flag: 'symbols',
    schema: csv(SYMBOLS),
    default: SYMBOLS.join(','),
    description: 'Symbols to ingest and compute.',
  },
  venues: {
    env: 'VENUES',
    flag: 'venues',
    schema: csv(VENUES),
    default: 'deribit,bybit,okx,binance,derive,thalex,delta_india,delta,bullish,paradex',
    description: 'Venues to connect to.',
  },
  snapshotIntervalMs: {
    env: 'SNAPSHOT_INTERVAL_MS',
    flag: 'snapshot-interval-ms',
    schema: positiveInt,
    default: '30000',
    description: 'Analytics snapshot cadence, aligned to the wall clock.',
  },
  sandbox: {
    env: 'SANDBOX',
    flag: 'sandbox',
    schema: bool,
    default: 'false',
    description: 'Feed the connectors from the local sandbox market instead of live venues.',
  },
  sandboxSeed: {
    env: 'SANDBOX_SEED',
    flag: 'sandbox-seed',
    schema: z.coerce.number().int(),
    default: '42',
    description: 'Seed of the sandbox market (same seed, same market).',
  },
  sandboxUrls: {
    env: 'SANDBOX_URLS',
    flag: 'sandbox-urls',
    schema: z.string().min(1).optional(),
    default: undefined,
    description:
      "With SANDBOX: a JSON file of the URLs of a sandbox market running in another process ({venue: {rest, ws: {role: url}}}, the sandbox's own urls); ingest connects to it instead of starting one. Unset: ingest starts its own sandbox.",
  },
  ingestStartFillMs: {
    env: 'INGEST_START_FILL_MS',
    flag: 'ingest-start-fill-ms',
    schema: z.coerce.number().int().min(0),
    default: '0',
    description:
      'At start, once every socket of a venue is open, fill the trades of this many ms back from its REST recent-trades endpoints (the gap-fill venues): a restarted ingest process recovers what its predecessor did not publish. 0 = off.',
  },
  ingestThread: {
    env: 'INGEST_THREAD',
    flag: 'ingest-thread',
    schema: bool,
    default: 'true',
    description:
      "Run the ingest role's connectors (sockets, parsing, dedup, Avro encoding) on a worker thread of their own, so they use a second core beside the bus, raw writer, snapshots and API of the same process; every publish crosses as one batch and is acknowledged when the bus took it. false = on the main thread.",
  },
  ingestSpoolMb: {
    env: 'INGEST_SPOOL_MB',
    flag: 'ingest-spool-mb',
    schema: z.coerce.number().int().min(0),
    default: '1024',
    description:
      'Disk spool of the ingest role under DATA_DIR/ingest-spool: while Kafka refuses or stalls a publish (at the publisher high-water mark), events are written there and the venues stay read; published in order once Kafka is back (a spool left by a stopped process is published first at the next start). Above this many MiB on disk, reading pauses again. 0 = no spool (reading pauses at the high-water mark).',
  },
  // --- query API (the api role); see query-api/README.md
  apiKeyPrefix: {
    env: 'API_KEY_PREFIX',
    flag: 'api-key-prefix',
    schema: z.string().regex(/^[a-z][a-z0-9]{0,15}$/),
    default: 'gex',
    description: 'Prefix of API keys: <prefix>_live_<32 chars>.',
  },
  redisUrl: {
    env: 'REDIS_URL',
    flag: 'redis-url',
    schema: z
      .string()
      .regex(/^rediss?:\/\//)
      .optional(),
    default: undefined,
    description: 'Redis holding the shared rate-limit and quota counters. Unset: in-process counters.',
  },
  redisKeyPrefix: {
    env: 'REDIS_KEY_PREFIX',
    flag: 'redis-key-prefix',
    schema: z.string().max(64),
    default: 'gex:',
    description: 'Prefix of the Redis keys of the API.',
  },
  redisTimeoutMs: {
    env: 'REDIS_TIMEOUT_MS',
    flag: 'redis-timeout-ms',
    schema: positiveInt,
    default: '50',
    description: 'Redis command timeout; beyond it the stricter in-process fallback counter is used.',
  },
  rateLimitFallbackFactor: {
    env: 'RATE_LIMIT_FALLBACK_FACTOR',
    flag: 'rate-limit-fallback-factor',
    schema: z.coerce.number().gt(0).max(1),
    default: '0.5',
    description: 'Per-minute cap of the per-machine fallback counter, as a fraction of the plan cap.',
  },
  adminPort: {
    env: 'ADMIN_PORT',
    flag: 'admin-port',
    schema: port,
    default: '8081',
    description: 'Loopback-only admin endpoint of the api role (gex keys / gex users talk to it). 0 = any free port.',
  },
  accountsRefreshMs: {
    env: 'ACCOUNTS_REFRESH_MS',
    flag: 'accounts-refresh-ms',
    schema: positiveInt,
    default: '10000',
    description: 'How often the API reloads users and API keys from ClickHouse (revocations take effect within this).',
  },
  usageFlushMs: {
    env: 'USAGE_FLUSH_MS',
    flag: 'usage-flush-ms',
    schema: positiveInt,
    default: '5000',
    description: 'How often metered usage is appended to usage_events.',
  },
  discoveryCacheMs: {
    env: 'DISCOVERY_CACHE_MS',
    flag: 'discovery-cache-ms',
    schema: positiveInt,
    default: '10000',
    description: 'Cache lifetime of the store-derived discovery data (/v2/symbols, /v2/status, /v2/expiries, data_coverage).',
  },
  marketCacheMs: {
    env: 'MARKET_CACHE_MS',
    flag: 'market-cache-ms',
    schema: z.coerce.number().int().min(0),
    default: '30000',
    description:
      'Server cache of the market routes (spec: about 30 s for computed routes): a repeated request for the same window is served from memory within this time. 0 = off.',
  },
  storeReadTimeoutMs: {
    env: 'STORE_READ_TIMEOUT_MS',
    flag: 'store-read-timeout-ms',
    schema: positiveInt,
    default: '2500',
    description:
      'The API answers within about this time when the store is down or frozen: a store read that has not answered by then fails (503 UPSTREAM_ERROR with Retry-After).',
  },
  storeBreakerFailures: {
    env: 'STORE_BREAKER_FAILURES',
    flag: 'store-breaker-failures',
    schema: positiveInt,
    default: '3',
    description:
      "Consecutive unavailable store reads (timeout, refused, reset) that open the API's store circuit: reads then fail at once (503 with Retry-After) until a health probe answers.",
  },
  storeBreakerProbeMs: {
    env: 'STORE_BREAKER_PROBE_MS',
    flag: 'store-breaker-probe-ms',
    schema: positiveInt,
    default: '1000',
    description: 'Interval of the health probe (a ping) while the store circuit is open; the first answer closes it.',
  },
  routeCacheMs: {
    env: 'ROUTE_CACHE_MS',
    flag: 'route-cache-ms',
    schema: z.coerce.number().int().min(0),
    default: '30000',
    description:
      'Server cache of the other computed routes (put/call ratio, range, premium tide, strike heat, ETF flows, 13F holders): an answer is reused for the same parameters, window and plan history policy within this time. 0 = off.',
  },
  tapeTailRows: {
    env: 'TAPE_TAIL_ROWS',
    flag: 'tape-tail-rows',
    schema: z.coerce.number().int().min(0).max(1_000_000),
    default: '20000',
    description:
      'Newest option trades per symbol the API keeps in memory from the bus, so /v2/tape pages inside them are served without a store read (query-api/tape/tail.ts). 0 = off: every page from the store.',
  },
  tapeTailReconcileMs: {
    env: 'TAPE_TAIL_RECONCILE_MS',
    flag: 'tape-tail-reconcile-ms',
    schema: positiveInt,
    default: '30000',
    description:
      'How often the tape tail is checked against the stored trades (any stored trade it lacks is added and counted in gex_api_tape_tail_repaired_total).',
  },
  liveFlowTrades: {
    env: 'LIVE_FLOW_TRADES',
    flag: 'live-flow-trades',
    schema: z.coerce.number().int().min(0).max(20_000_000),
    default: '1000000',
    description:
      'Live-contract option trades per flow symbol (BTC, ETH) the API keeps in memory from the bus, so /v2/tape/flow-by-strike sums them without a store read (query-api/tape/live-flow.ts; ~150 bytes a trade). More live trades than this: read from the store. 0 = off.',
  },
  liveFlowReconcileMs: {
    env: 'LIVE_FLOW_RECONCILE_MS',
    flag: 'live-flow-reconcile-ms',
    schema: positiveInt,
    default: '600000',
    description:
      'How often the live flow book is checked against the stored live trades (the last 15 minutes of option_trades_unexpired per flow symbol, all of them every 6th time or after contracts expired; a stored trade it lacks is added and counted in gex_api_live_flow_repaired_total).',
  },
  replayThread: {
    env: 'REPLAY_THREAD',
    flag: 'replay-thread',
    schema: bool,
    default: 'true',
    description:
      "Make the API's replays (GET /v2/replay, the WebSocket public/replay) on a worker thread of their own, started at the first replay: their store results are decoded, merged and rendered there, at a lower scheduling priority (their reads too, and on one engine thread each on the embedded store), and this thread only writes the batches, so requests and the live feed keep their latency. The thread's V8 heap: a young generation of 16 MB and an old one of at most 1,536 MB (a replay holds ~3 MB there; past the limit the thread ends, its replays fail and the next replay starts a new one). false = on the API's event loop.",
  },
  replayLowersV8Workers: {
    env: 'REPLAY_LOWERS_V8_WORKERS',
    flag: 'replay-lowers-v8-workers',
    schema: bool,
    default: 'true',
    description:
      "With REPLAY_THREAD: when the replay thread starts, V8's platform worker threads of the process (they run the garbage collection of every thread, the replay thread's included) take its scheduling priority too (nice 19, Linux), so on a busy machine the replays' garbage collection does not take the cores from the event loop (the live feed's p99 under 20 replays at speed max: 8-11 ms -> 5-7 ms). The event loop's own collections then get less help from them when the machine is busy. false = leave them at the process's priority.",
  },
  replayStopsPretenuring: {
    env: 'REPLAY_STOPS_PRETENURING',
    flag: 'replay-stops-pretenuring',
    schema: bool,
    default: 'true',
    description:
      "With REPLAY_THREAD: when the replay thread starts, V8's allocation-site pretenuring stops for the process (V8's flags are the process's: the event loop's heap too). With it, a place of the code whose objects had survived a young collection made them in the old generation from then on, and such a container kept the replay thread's per-trade objects alive until the next full collection (one every ~200 ms during a tape replay): in the whole replay bench the tape ran at 262-284k trades/s without it against 228-235k with it (0.68-0.76x the store's page reads against 0.59-0.60x). false = leave V8's default.",
  },
  healthPerIpPerMinute: {
    env: 'HEALTH_RATE_LIMIT',
    flag: 'health-rate-limit',
    schema: positiveInt,
    default: '60',
    description: 'Requests per minute per client IP on /v2/health.',
  },
  httpBodyLimitBytes: {
    env: 'HTTP_BODY_LIMIT_BYTES',
    flag: 'http-body-limit-bytes',
    schema: positiveInt,
    default: '16384',
    description: 'Largest request body the API accepts (bytes; the /v2 routes are GETs): a larger one is a 413.',
  },
  httpMaxHeaderBytes: {
    env: 'HTTP_MAX_HEADER_BYTES',
    flag: 'http-max-header-bytes',
    schema: positiveInt,
    default: '16384',
    description: 'Largest request line + headers the API accepts (bytes): larger is a 431 and the connection is closed.',
  },
  httpHeadersTimeoutMs: {
    env: 'HTTP_HEADERS_TIMEOUT_MS',
    flag: 'http-headers-timeout-ms',
    schema: positiveInt,
    default: '10000',
    description: 'A client must send its complete request headers within this time (slow-client cut-off: 408 and close).',
  },
  httpRequestTimeoutMs: {
    env: 'HTTP_REQUEST_TIMEOUT_MS',
    flag: 'http-request-timeout-ms',
    schema: positiveInt,
    default: '30000',
    description:
      'A client must send its complete request (headers and body) within this time (408 and close). Not applied to upgraded WebSocket sessions.',
  },
  httpKeepAliveTimeoutMs: {
    env: 'HTTP_KEEP_ALIVE_TIMEOUT_MS',
    flag: 'http-keep-alive-timeout-ms',
    schema: positiveInt,
    default: '5000',
    description: 'An idle keep-alive connection is closed after this time.',
  },
  tlsCertFile: {
    env: 'TLS_CERT_FILE',
    flag: 'tls-cert-file',
    schema: z.string().min(1).optional(),
    default: undefined,
    description:
      'PEM certificate (chain, leaf first) of the API: with TLS_KEY_FILE, PORT serves HTTPS and wss:// (the admin endpoint stays plain HTTP on loopback). Both files are re-read on SIGHUP and when either changes. Unset (both): plain HTTP, e.g. behind a TLS-terminating proxy.',
  },
  tlsKeyFile: {
    env: 'TLS_KEY_FILE',
    flag: 'tls-key-file',
    schema: z.string().min(1).optional(),
    default: undefined,
    description: 'PEM private key (unencrypted) of TLS_CERT_FILE. Set both or neither.',
  },
  trustProxy: {
    env: 'TRUST_PROXY',
    flag: 'trust-proxy',
    schema: bool,
    default: 'false',
    description: 'Take the client IP from X-Forwarded-For (behind a load balancer).',
  },
  responseValidation: {
    env: 'RESPONSE_VALIDATION',
    flag: 'response-validation',
    schema: bool,
    default: 'false',
    description: 'Validate every response against its zod schema (on in tests and CI; costs CPU per response).',
  },
  publicBaseUrl: {
    env: 'PUBLIC_BASE_URL',
    flag: 'public-base-url',
    schema: z.string().max(512),
    default: '',
    description: 'Absolute base URL used in links (docs_url, openapi_url). Empty: relative links.',
  },
  quotaStarter: {
    env: 'QUOTA_STARTER',
    flag: 'quota-starter',
    schema: limit,
    default: '10000',
    description: 'Monthly request quota of level starter (or "unlimited").',
  },
  quotaStandard: {
    env: 'QUOTA_STANDARD',
    flag: 'quota-standard',
    schema: limit,
    default: '100000',
    description: 'Monthly request quota of level standard.',
  },
  quotaPro: { env: 'QUOTA_PRO', flag: 'quota-pro', schema: limit, default: '500000', description: 'Monthly request quota of level pro.' },
  quotaEnterprise: {
    env: 'QUOTA_ENTERPRISE',
    flag: 'quota-enterprise',
    schema: limit,
    default: 'unlimited',
    description: 'Monthly request quota of level enterprise.',
  },
  historyDaysStarter: {
    env: 'HISTORY_DAYS_STARTER',
    flag: 'history-days-starter',
    schema: limit,
    default: '30',
    description: 'History window (days) of level starter (or "unlimited").',
  },
  historyDaysStandard: {
    env: 'HISTORY_DAYS_STANDARD',
    flag: 'history-days-standard',
    schema: limit,
    default: '365',
    description: 'History window (days) of level standard.',
  },
  historyDaysPro: {
    env: 'HISTORY_DAYS_PRO',
    flag: 'history-days-pro',
    schema: limit,
    default: '1095',
    description: 'History window (days) of level pro.',
  },
  historyDaysEnterprise: {
    env: 'HISTORY_DAYS_ENTERPRISE',
    flag: 'history-days-enterprise',
    schema: limit,
    default: 'unlimited',
    description: 'History window (days) of level enterprise.',
  },
  logLevel: {
    env: 'LOG_LEVEL',
    flag: 'log-level',
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).optional(),
    default: undefined,
    description: 'Log level (fatal, error, warn, info, debug, trace). Unset: info for JSON logs, warn for readable logs on a terminal.',
  },
  logFormat: {
    env: 'LOG_FORMAT',
    flag: 'log-format',
    schema: z.enum(LOG_FORMAT_SETTINGS),
    default: 'auto',
    description:
      'Logs on stderr: json (one pino JSON object a line, for log shippers), pretty (readable lines; the roles add a ready line and a status line every 10 s), auto = pretty when stderr is a terminal, else json.',
  },
} as const satisfies Record<string, SettingSpec>;

export type SettingKey = keyof typeof SETTINGS;
export type Config = { readonly [K in SettingKey]: z.output<(typeof SETTINGS)[K]['schema']> };

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
  }
}

/** Parse `--flag value` / `--flag=value` / `--flag` (boolean) pairs; unknown words are returned as positionals. */
export function splitArgs(argv: readonly string[]): { flags: Map<string, string>; positionals: string[] } {
  const flags = new Map<string, string>();
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      if (eq > 0) flags.set(a.slice(2, eq), a.slice(eq + 1));
      else {
        const next = argv[i + 1];
        if (next !== undefined && !next.startsWith('--')) {
          flags.set(a.slice(2), next);
          i++;
        } else flags.set(a.slice(2), 'true');
      }
    } else positionals.push(a);
  }
  return { flags, positionals };
}

export function loadConfig(env: NodeJS.ProcessEnv, flags: ReadonlyMap<string, string> = new Map()): Config {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [key, spec] of Object.entries(SETTINGS) as [SettingKey, SettingSpec][]) {
    const raw = flags.get(spec.flag) ?? env[spec.env] ?? spec.default;
    const parsed = spec.schema.safeParse(raw === '' && spec.default === undefined ? undefined : raw);
    if (parsed.success) out[key] = parsed.data;
    else problems.push(`${spec.env} / --${spec.flag} = ${JSON.stringify(raw)}: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
  }
  if (problems.length) throw new ConfigError(problems);
  return out as Config;
}

/** The settings table for `gex --help`. */
export function settingsHelp(): string {
  const rows = Object.values(SETTINGS as Record<string, SettingSpec>).map((s) => [
    `--${s.flag}`,
    s.env,
    s.default ?? '(unset)',
    s.description,
  ]);
  const w = [0, 1, 2].map((c) => Math.max(...rows.map((r) => (r[c] as string).length)));
  return rows
    .map(
      (r) =>
        `  ${(r[0] as string).padEnd(w[0] as number)}  ${(r[1] as string).padEnd(w[1] as number)}  ${(r[2] as string).padEnd(w[2] as number)}  ${r[3]}`,
    )
    .join('\n');
}

/** The settings as a Markdown table (flag, variable, default, meaning): the README's configuration table. */
export function settingsMarkdown(): string {
  const cell = (s: string): string => s.replaceAll('|', '\\|');
  const rows = Object.values(SETTINGS as Record<string, SettingSpec>).map(
    (s) =>
      `| \`--${s.flag}\` | \`${s.env}\` | ${s.default === undefined ? 'unset' : s.default === '' ? 'empty' : `\`${cell(s.default)}\``} | ${cell(s.description)} |`,
  );
  return ['| flag | variable | default | meaning |', '|---|---|---|---|', ...rows].join('\n');
}
