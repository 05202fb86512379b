import { z } from 'zod';
import { SYMBOLS, VENUES } from '../../schemas/events.ts';

/**
 * Every setting of the product: one row each, with its environment variable, its command-line flag, its
 * default and what it does. `gex --help` prints this table; README's configuration table mirrors it.
 * Precedence: flag > environment > default. Values are validated with zod; an invalid value stops the process
 * with the setting's name and the reason.
 */

const csv = <T extends string>(allowed: readonly T[]) =>
  z
    .string()
    .transform((s) => s.split(',').map((x) => x.trim()).filter((x) => x.length > 0))
    .pipe(z.array(z.enum(allowed as [T, ...T[]])).min(1));

const optionalCsv = z
  .string()
  .transform((s) => s.split(',').map((x) => x.trim()).filter((x) => x.length > 0))
  .optional();

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();
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
  kafkaBrokers: { env: 'KAFKA_BROKERS', flag: 'kafka-brokers', schema: optionalCsv, default: undefined, description: 'Comma-separated Kafka bootstrap brokers. Unset: the in-process bus (embedded default).' },
  kafkaClientId: { env: 'KAFKA_CLIENT_ID', flag: 'kafka-client-id', schema: z.string().min(1), default: 'gex', description: 'Kafka client id prefix.' },
  topicPartitions: { env: 'TOPIC_PARTITIONS', flag: 'topic-partitions', schema: positiveInt, default: '6', description: 'Partitions per topic when the product creates its topics.' },
  clickhouseUrl: { env: 'CLICKHOUSE_URL', flag: 'clickhouse-url', schema: z.url().optional(), default: undefined, description: 'ClickHouse server HTTP URL. Unset: embedded chDB under DATA_DIR.' },
  clickhouseUser: { env: 'CLICKHOUSE_USER', flag: 'clickhouse-user', schema: z.string(), default: 'default', description: 'ClickHouse user (server only).' },
  clickhousePassword: { env: 'CLICKHOUSE_PASSWORD', flag: 'clickhouse-password', schema: z.string(), default: '', description: 'ClickHouse password (server only).' },
  clickhouseDatabase: { env: 'CLICKHOUSE_DATABASE', flag: 'clickhouse-database', schema: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), default: 'default', description: 'ClickHouse database.' },
  dataDir: { env: 'DATA_DIR', flag: 'data-dir', schema: z.string().min(1), default: './data', description: 'Data directory of the embedded store (one process per directory).' },
  host: { env: 'HOST', flag: 'host', schema: z.string().min(1), default: '127.0.0.1', description: 'Address the API listens on.' },
  port: { env: 'PORT', flag: 'port', schema: port, default: '8080', description: 'Port of the /v2 API.' },
  metricsPort: { env: 'METRICS_PORT', flag: 'metrics-port', schema: port, default: '9464', description: 'Port of the Prometheus /metrics endpoint (0 = any free port).' },
  symbols: { env: 'SYMBOLS', flag: 'symbols', schema: csv(SYMBOLS), default: SYMBOLS.join(','), description: 'Symbols to ingest and compute.' },
  venues: { env: 'VENUES', flag: 'venues', schema: csv(VENUES), default: 'deribit,bybit,okx,binance', description: 'Venues to connect to.' },
  snapshotIntervalMs: { env: 'SNAPSHOT_INTERVAL_MS', flag: 'snapshot-interval-ms', schema: positiveInt, default: '30000', description: 'Analytics snapshot cadence, aligned to the wall clock.' },
  sandbox: { env: 'SANDBOX', flag: 'sandbox', schema: bool, default: 'false', description: 'Feed the connectors from the local sandbox market instead of live venues.' },
  sandboxSeed: { env: 'SANDBOX_SEED', flag: 'sandbox-seed', schema: z.coerce.number().int(), default: '42', description: 'Seed of the sandbox market (same seed, same market).' },
  logLevel: { env: 'LOG_LEVEL', flag: 'log-level', schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']), default: 'info', description: 'Log level of the JSON logs (stderr).' },
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
    .map((r) => `  ${(r[0] as string).padEnd(w[0] as number)}  ${(r[1] as string).padEnd(w[1] as number)}  ${(r[2] as string).padEnd(w[2] as number)}  ${r[3]}`)
    .join('\n');
}
