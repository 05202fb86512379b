import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { runningStoreEndpoint, STORE_ENDPOINT_FILE } from '../runtime/store-endpoint.ts';

const root = new URL('../../', import.meta.url).pathname;
const ADMIN_TOKEN = 'sql-test-admin-token-0123456789';

function gex(env: Record<string, string>, ...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'app/cli/main.ts', ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const WRITES = [
  'INSERT INTO schema_migrations SELECT * FROM schema_migrations',
  'CREATE TABLE sneaky (x UInt8) ENGINE = Memory',
  'DROP TABLE schema_migrations',
  'SET readonly = 0',
  'SELECT 1 SETTINGS max_threads = 1',
];

/**
 * Reads, formats and refused writes of `gex sql` under env; `how` names the path in messages. `reader`: the endpoint's
 * read-only user (role gex_reader: it may not even ask whether a table outside the schema exists).
 */
function checkReadOnlySql(env: Record<string, string>, how: string, reader: boolean): void {
  const count = 'SELECT count() > 0 AS migrated, toDateTime(0) AS epoch, toUInt64(18446744073709551615) AS big FROM schema_migrations';
  const csv = gex(env, 'sql', count, '--format', 'csv');
  assert.equal(csv.code, 0, `${how}: ${csv.stderr}`);
  assert.equal(csv.stdout, '"migrated","epoch","big"\n1,"1970-01-01 00:00:00",18446744073709551615\n', `${how}: UTC`);
  assert.equal(
    gex(env, 'sql', count, '--format', 'jsonl').stdout,
    '{"migrated":1,"epoch":"1970-01-01 00:00:00","big":"18446744073709551615"}\n',
    how,
  );
  assert.equal(gex(env, 'sql', 'SELECT 1 AS one').stdout, '┌─one─┐\n│   1 │\n└─────┘\n', `${how}: plain table`);
  const before = gex(env, 'sql', 'SELECT count() AS n FROM schema_migrations', '--format', 'csv').stdout;
  for (const write of WRITES) {
    const r = gex(env, 'sql', write);
    assert.equal(r.code, 1, `${how}: ${write} must fail`);
    assert.match(r.stderr, /^gex sql: Code: 164\. .*readonly mode/, `${how}: ${write}`);
  }
  assert.equal(gex(env, 'sql', 'SELECT count() AS n FROM schema_migrations', '--format', 'csv').stdout, before, `${how}: nothing changed`);
  if (!reader) assert.equal(gex(env, 'sql', 'EXISTS TABLE sneaky', '--format', 'csv').stdout, '"result"\n0\n', how);
  const bad = gex(env, 'sql', 'SELEC 1');
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /gex sql: Code: 62\. .*Syntax error/, how);
}

test(
  'gex sql while a process holds the store: through its default endpoint as the read-only user; with CLICKHOUSE_URL as admin plus readonly = 1',
  { timeout: 600_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gex-sql-running-'));
    const env = { DATA_DIR: dir };
    const api = spawn(process.execPath, ['--import', 'tsx', 'app/cli/main.ts', 'query-api'], {
      cwd: root,
      env: {
        ...process.env,
        ...env,
        LOG_LEVEL: 'warn',
        PORT: '0',
        METRICS_PORT: '0',
        // No CLICKHOUSE_HTTP_PORT: the endpoint is on by default (8123, or a free port when 8123 is taken).
        CLICKHOUSE_HTTP_ADMIN_TOKEN: ADMIN_TOKEN,
      },
      stdio: 'ignore',
    });
    try {
      let url: string | undefined;
      for (let i = 0; i < 240 && url === undefined; i++) {
        await sleep(500);
        url = runningStoreEndpoint(dir);
      }
      assert.ok(url !== undefined, 'the running process wrote its endpoint file');
      checkReadOnlySql(env, 'running process', true);
      const keys = gex(env, 'sql', 'SELECT key_hash FROM api_keys');
      assert.equal(keys.code, 1);
      assert.match(keys.stderr, /^gex sql: Code: 497\. .*Not enough privileges/, "the account tables are out of the reader's reach");
      checkReadOnlySql(
        { ...env, CLICKHOUSE_URL: url, CLICKHOUSE_USER: 'admin', CLICKHOUSE_PASSWORD: ADMIN_TOKEN },
        'CLICKHOUSE_URL',
        false,
      );
      const wrong = gex(
        { ...env, CLICKHOUSE_URL: url, CLICKHOUSE_USER: 'admin', CLICKHOUSE_PASSWORD: 'not-the-token-at-all' },
        'sql',
        'SELECT 1',
      );
      assert.equal(wrong.code, 1);
      assert.match(wrong.stderr, /Code: 516\..*password is incorrect/);
    } finally {
      api.kill('SIGINT');
      await new Promise((resolve) => api.once('exit', resolve));
    }
    try {
      assert.equal(existsSync(join(dir, STORE_ENDPOINT_FILE)), false, 'the endpoint file is removed at shutdown');
      const direct = gex(env, 'sql', 'SELECT count() > 0 AS migrated FROM schema_migrations', '--format', 'csv');
      assert.equal(direct.stdout, '"migrated"\n1\n', 'stopped: gex sql opens the store directly');
      const down = gex({ ...env, CLICKHOUSE_URL: 'http://127.0.0.1:9' }, 'sql', 'SELECT 1');
      assert.equal(down.code, 1);
      assert.match(down.stderr, /gex sql: cannot reach http:\/\/127\.0\.0\.1:9/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
