import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { Session } from 'chdb';

const root = new URL('../../', import.meta.url).pathname;
function gex(dataDir: string, ...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'app/cli/main.ts', ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, LOG_LEVEL: 'warn', DATA_DIR: dataDir },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test(
  'gex sql: read-only queries on the embedded store in table, csv and jsonl; writes, DDL, settings changes and the account tables fail',
  { timeout: 600_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gex-sql-'));
    try {
      assert.equal(gex(dir, 'migrate').code, 0);
      const count =
        "SELECT count() > 0 AS migrated, toTimeZone(toDateTime(0), 'UTC') AS epoch, toUInt64(18446744073709551615) AS big FROM schema_migrations";
      const csv = gex(dir, 'sql', count, '--format', 'csv');
      assert.equal(csv.code, 0, csv.stderr);
      assert.equal(csv.stdout, '"migrated","epoch","big"\n1,"1970-01-01 00:00:00",18446744073709551615\n');
      const jsonl = gex(dir, 'sql', count, '--format', 'jsonl');
      assert.equal(
        jsonl.stdout,
        '{"migrated":1,"epoch":"1970-01-01 00:00:00","big":"18446744073709551615"}\n',
        'session time zone UTC, 64-bit integers quoted',
      );
      const table = gex(dir, 'sql', 'SELECT 1 AS one');
      assert.equal(table.code, 0, table.stderr);
      assert.equal(table.stdout, '┌─one─┐\n│   1 │\n└─────┘\n');
      const before = gex(dir, 'sql', 'SELECT count() AS n FROM schema_migrations', '--format', 'csv').stdout;
      for (const write of [
        'INSERT INTO schema_migrations SELECT * FROM schema_migrations',
        'CREATE TABLE sneaky (x UInt8) ENGINE = Memory',
        'DROP TABLE schema_migrations',
        'SET readonly = 0',
        'SELECT 1 SETTINGS max_threads = 1',
      ]) {
        const r = gex(dir, 'sql', write);
        assert.equal(r.code, 1, `${write} must fail`);
        assert.match(r.stderr, /readonly mode|READONLY/, write);
      }
      assert.equal(gex(dir, 'sql', 'SELECT count() AS n FROM schema_migrations', '--format', 'csv').stdout, before, 'nothing changed');
      // The reader role: market tables, not the account tables; its statement gate keeps it in that role.
      for (const [sql, message] of [
        ['SELECT * FROM api_keys', /Code: 497\. .*Not enough privileges/],
        ['SET ROLE gex_writer; SELECT * FROM users', /Code: 62\. .*Multi-statements are not allowed/],
      ] as const) {
        const r = gex(dir, 'sql', sql);
        assert.equal(r.code, 1, sql);
        assert.match(r.stderr, message, sql);
      }
      assert.equal(gex(dir, 'sql').code, 2);
      assert.equal(gex(dir, 'sql', 'SELECT 1', '--format', 'xml').code, 2);
      const bad = gex(dir, 'sql', 'SELEC 1');
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /gex sql: .*Syntax error/);
      // A running process holding the store: gex sql says so instead of failing obscurely.
      const holder = new Session(join(dir, 'clickhouse'));
      try {
        assert.equal((await holder.queryAsync('EXISTS TABLE sneaky', { format: 'TSV' })).text(), '0\n', 'CREATE TABLE was refused');
        const held = gex(dir, 'sql', 'SELECT 1');
        assert.equal(held.code, 1);
        assert.match(
          held.stderr,
          /cannot open the store .* \(is a running gex process holding it\? It serves its SQL endpoint unless CLICKHOUSE_HTTP_PORT=off; query it through that endpoint while it runs\)/,
        );
      } finally {
        holder.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
