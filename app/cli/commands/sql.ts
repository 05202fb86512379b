import { resolve } from 'node:path';
import type { Session } from 'chdb';
import type { CliCommand } from '../command.ts';
import type { Config } from '#platform/settings.ts';
import { runningStoreEndpoint } from '../../runtime/store-endpoint.ts';
import { queryOverHttp, SERVER_SQL_SETTINGS, type HttpSqlRequest } from '../sql-http.ts';
import { openReaderSession, runReadStatement } from '#clickhouse/reader-session.ts';

/** `--format` of `gex sql` -> the ClickHouse output format that prints it. */
const FORMATS: Readonly<Record<string, string>> = { table: 'PrettyCompactMonoBlock', csv: 'CSVWithNames', jsonl: 'JSONEachRow' };

/** Prints an HTTP answer; exit code 0 or 1. */
async function viaHttp(req: HttpSqlRequest): Promise<number> {
  const r = await queryOverHttp(req);
  if (r.ok) process.stdout.write(r.text);
  else process.stderr.write(`gex sql: ${r.message}\n`);
  return r.ok ? 0 : 1;
}

/** With CLICKHOUSE_URL: that server, as CLICKHOUSE_USER, with `readonly = 1` added by the query itself. */
function serverRequest(config: Config, sql: string, format: string): HttpSqlRequest {
  return {
    url: config.clickhouseUrl ?? '',
    sql,
    format,
    database: config.clickhouseDatabase,
    user: config.clickhouseUser,
    password: config.clickhousePassword,
    settings: SERVER_SQL_SETTINGS,
  };
}

/**
 * `gex sql "SELECT …" [--format table|csv|jsonl]`: a read-only query, wherever the store is.
 * - CLICKHOUSE_URL set: that server over HTTP, with `readonly = 1` after the output settings (serverRequest).
 * - A running process holds the embedded store and serves its HTTP endpoint (on by default, CLICKHOUSE_HTTP_PORT; it
 *   says where in DATA_DIR/clickhouse-http.json): through that endpoint as its read-only default user.
 * - Otherwise: the embedded store under DATA_DIR directly, as the same reader (#clickhouse/reader-session.ts).
 * In every case read-only is ClickHouse's own `readonly` (writes, DDL and settings changes fail in the engine);
 * on the embedded store also the reader role (no account tables) and one read statement per query; the same time
 * zone, 64-bit quoting and plain Pretty output as the product.
 */
export const sqlCommand: CliCommand = {
  name: 'sql',
  usage: 'sql "SELECT …" [--format table|csv|jsonl]',
  summary: 'Run a read-only SQL query (CLICKHOUSE_URL, the running process holding DATA_DIR, or DATA_DIR directly) and print the result.',
  async run({ config, positionals, flags }) {
    const sql = positionals.join(' ').trim();
    const format = FORMATS[flags.get('format') ?? 'table'];
    if (sql === '' || format === undefined) {
      process.stderr.write('usage: gex sql "SELECT …" [--format table|csv|jsonl]\n');
      return 2;
    }
    if (config.clickhouseUrl !== undefined) return viaHttp(serverRequest(config, sql, format));
    const running = runningStoreEndpoint(config.dataDir);
    if (running !== undefined) return viaHttp({ url: running, sql, format, database: config.clickhouseDatabase, settings: [] });
    const path = resolve(config.dataDir, 'clickhouse');
    let session: Session;
    try {
      session = await openReaderSession(path, config.clickhouseDatabase);
    } catch (err) {
      process.stderr.write(
        `gex sql: cannot open the store at ${path} (is a running gex process holding it? It serves its SQL endpoint unless ` +
          `CLICKHOUSE_HTTP_PORT=off; query it through that endpoint while it runs): ${(err as Error).message}\n`,
      );
      return 1;
    }
    try {
      const result = await runReadStatement(session, sql, format);
      process.stdout.write(result.text());
      return 0;
    } catch (err) {
      process.stderr.write(`gex sql: ${(err as Error).message.trim()}\n`);
      return 1;
    } finally {
      session.close();
    }
  },
};
