import { resolve } from 'node:path';
import { ConfigError, type Config } from '#platform/settings.ts';
import type { Logger } from '#platform/log.ts';
import { startClickHouseHttp } from '#clickhouse/http-endpoint.ts';
import { removeStoreEndpoint, writeStoreEndpoint } from './store-endpoint.ts';

/** ClickHouse's own HTTP port: clickhouse-connect, DBeaver and Grafana's data source default to it. */
export const DEFAULT_SQL_PORT = 8123;

export interface SqlEndpoint {
  readonly url: string;
  close(): Promise<void>;
}

function inUse(err: unknown): boolean {
  return (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
}

/**
 * The SQL endpoint of a process that holds the embedded store (CLICKHOUSE_HTTP_PORT): `auto` listens on 8123, or on
 * any free port when 8123 is taken (a ClickHouse server on the machine, a second product process); a number listens
 * there or fails the start with the reason; `off` serves none (null). While it listens, DATA_DIR/clickhouse-http.json
 * names it, so `gex sql` finds it with no flags; close() removes the file.
 */
export async function startSqlEndpoint(config: Config, log: Logger, preferredPort = DEFAULT_SQL_PORT): Promise<SqlEndpoint | null> {
  const setting = config.clickhouseHttpPort;
  if (setting === 'off') return null;
  const opts = {
    dataPath: resolve(config.dataDir, 'clickhouse'),
    database: config.clickhouseDatabase,
    host: config.clickhouseHttpHost,
    ...(config.clickhouseHttpAdminToken !== undefined ? { adminToken: config.clickhouseHttpAdminToken } : {}),
  };
  let http: Awaited<ReturnType<typeof startClickHouseHttp>>;
  try {
    http = await startClickHouseHttp({ ...opts, port: setting === 'auto' ? preferredPort : setting });
  } catch (err) {
    if (setting !== 'auto' && inUse(err))
      throw new ConfigError([`CLICKHOUSE_HTTP_PORT: port ${setting} on ${opts.host} is in use; choose another port, auto or off`]);
    if (!inUse(err)) throw err;
    http = await startClickHouseHttp({ ...opts, port: 0 });
    log.warn({ port: preferredPort, url: http.url }, `port ${preferredPort} is in use: the SQL endpoint listens on ${http.url}`);
  }
  writeStoreEndpoint(config.dataDir, http.url);
  log.info({ url: http.url, admin: opts.adminToken !== undefined }, 'ClickHouse HTTP endpoint serving the embedded store');
  return {
    url: http.url,
    close: async () => {
      removeStoreEndpoint(config.dataDir);
      await http.close();
    },
  };
}
