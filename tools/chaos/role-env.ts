/**
 * The environment of one product process in a chaos harness: its own data dir and metrics port under the run's work
 * dir, the brokers, the venues (and symbols), and its store access: the process that serves the ClickHouse endpoint
 * of the shared embedded store (CLICKHOUSE_HTTP_PORT + admin token), or one that reads and writes through it or a
 * server (CLICKHOUSE_URL and a user).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './ports.ts';

/** The ClickHouse HTTP endpoint of a shared embedded store: where it listens and its admin user's token. */
export interface StoreEndpoint {
  readonly url: string;
  readonly port: number;
  readonly token: string;
}

/** A ClickHouse user of a store reached over HTTP (the shared store's endpoint, or a server). */
export interface StoreLogin {
  readonly url: string;
  readonly user: string;
  readonly password: string;
}

/** The process serves the endpoint of the embedded store it holds, or reads and writes a store over HTTP. */
export type StoreAccess = { readonly serves: Pick<StoreEndpoint, 'port' | 'token'> } | { readonly reads: StoreLogin };

/** The admin login of a shared store's endpoint. */
export const adminLogin = (e: StoreEndpoint): StoreLogin => ({ url: e.url, user: 'admin', password: e.token });

export interface RoleEnvOptions {
  readonly workDir: string;
  /** Process name: its data dir under workDir, and KAFKA_CLIENT_ID `<clientPrefix>-<name>`. */
  readonly name: string;
  readonly clientPrefix: string;
  readonly brokers: readonly string[];
  readonly venues: readonly string[];
  /** SYMBOLS; absent = the product's default. */
  readonly symbols?: readonly string[];
  readonly store: StoreAccess;
  /** More settings (LOG_LEVEL among them); the ones above win over a key of the same name. */
  readonly extra?: NodeJS.ProcessEnv;
}

/** The process's environment and the port its /metrics listens on. */
export async function roleEnv(o: RoleEnvOptions): Promise<{ env: NodeJS.ProcessEnv; metricsPort: number }> {
  const dataDir = join(o.workDir, o.name);
  mkdirSync(dataDir, { recursive: true });
  const metricsPort = await freePort();
  const s = o.store;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    LOG_LEVEL: 'info',
    ...o.extra,
    KAFKA_BROKERS: o.brokers.join(','),
    KAFKA_CLIENT_ID: `${o.clientPrefix}-${o.name}`,
    DATA_DIR: dataDir,
    METRICS_PORT: String(metricsPort),
    VENUES: o.venues.join(','),
    ...(o.symbols !== undefined ? { SYMBOLS: o.symbols.join(',') } : {}),
    ...('serves' in s
      ? { CLICKHOUSE_HTTP_PORT: String(s.serves.port), CLICKHOUSE_HTTP_ADMIN_TOKEN: s.serves.token }
      : { CLICKHOUSE_URL: s.reads.url, CLICKHOUSE_USER: s.reads.user, CLICKHOUSE_PASSWORD: s.reads.password }),
  };
  return { env, metricsPort };
}
