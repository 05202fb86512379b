import { resolve } from 'node:path';
import { Session } from 'chdb';
import type { CliCommand } from '../command.ts';

/** `--format` of `gex sql` -> the ClickHouse output format that prints it. */
const FORMATS: Readonly<Record<string, string>> = { table: 'PrettyCompactMonoBlock', csv: 'CSVWithNames', jsonl: 'JSONEachRow' };

/**
 * `gex sql "SELECT …" [--format table|csv|jsonl]`: a read-only query on the embedded store under DATA_DIR.
 * Read-only is ClickHouse's own `readonly = 1` on the session (writes, DDL and settings changes fail in the
 * engine), set after the session's output settings. The same time zone and 64-bit quoting as the product.
 */
export const sqlCommand: CliCommand = {
  name: 'sql',
  usage: 'sql "SELECT …" [--format table|csv|jsonl]',
  summary: 'Run a read-only SQL query on the embedded store (DATA_DIR) and print the result.',
  async run({ config, positionals, flags }) {
    const sql = positionals.join(' ').trim();
    const format = FORMATS[flags.get('format') ?? 'table'];
    if (sql === '' || format === undefined) {
      process.stderr.write('usage: gex sql "SELECT …" [--format table|csv|jsonl]\n');
      return 2;
    }
    if (config.clickhouseUrl !== undefined) {
      process.stderr.write('gex sql reads the embedded store; with CLICKHOUSE_URL set, query that server with its own clients and a read-only user\n');
      return 2;
    }
    const path = resolve(config.dataDir, 'clickhouse');
    let session: Session;
    try {
      session = new Session(path);
      for (const setup of ["SET session_timezone = 'UTC'", 'SET output_format_json_quote_64bit_integers = 1', 'SET output_format_pretty_color = 0', 'SET output_format_pretty_row_numbers = 0', `USE ${config.clickhouseDatabase}`, 'SET readonly = 1']) {
        await session.queryAsync(setup);
      }
    } catch (err) {
      process.stderr.write(`gex sql: cannot open the store at ${path} (is a running gex process holding it?): ${(err as Error).message}\n`);
      return 1;
    }
    try {
      const result = await session.queryAsync(sql, { format });
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
