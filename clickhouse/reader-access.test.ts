import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Session } from 'chdb';
import { createStore } from './store.ts';
import { migrate, loadMigrations } from './migrate.ts';
import { startClickHouseHttp } from './http-endpoint.ts';
import { ACCOUNT_TABLES } from './engine-access.ts';
import { optionTradeRow } from './rows.ts';
import { optionTrade } from './testing/fixtures.ts';

/**
 * Tries to read the account tables as the endpoint's read-only user, every way we know, against the real engine over
 * real HTTP. Every account row carries SENTINEL; most attacks are first run as admin to show they do reach the rows.
 */
const SENTINEL = 'zq7sentinel';
const TOKEN = 'reader-access-admin-token';
const USER_ID = `user-${SENTINEL}`;
const KEY_HASH = `${SENTINEL}${'0'.repeat(53)}`;

type Answer = { status: number; code: string | null; text: string };

async function post(base: string, sql: string, opts: { admin?: boolean; query?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = opts.admin
    ? { authorization: `Basic ${Buffer.from(`admin:${TOKEN}`).toString('base64')}` }
    : { 'x-clickhouse-user': 'analyst' };
  const res = await fetch(`${base}/${opts.query ?? ''}`, { method: 'POST', body: sql, headers });
  return { status: res.status, code: res.headers.get('x-clickhouse-exception-code'), text: await res.text() };
}

/** Attacks that read account rows: [sql, the reader's error code, whether the same query as admin shows SENTINEL]. */
function dataAttacks(dir: string): (readonly [string, string, boolean])[] {
  return [
    // names: plain, qualified, quoted, backticks, comments inside, another case
    ['SELECT * FROM users', '497', true],
    ['SELECT * FROM default.api_keys', '497', true],
    ['SELECT * FROM "default"."usage_events"', '497', true],
    ['SELECT * FROM `default`.`users`', '497', true],
    ['SELECT * FROM default/* x */./* y */api_keys', '497', true],
    ['SELECT * FROM default . users', '497', true],
    ['SELECT * FROM USERS', '60', false],
    ['SELECT * FROM Default.Users', '81', false],
    // subqueries, CTEs, UNION, INTERSECT, JOIN, IN, scalar subqueries
    ['SELECT * FROM (SELECT * FROM (SELECT user_id FROM users))', '497', true],
    ['SELECT (SELECT any(key_hash) FROM api_keys) AS k', '497', true],
    ['WITH u AS (SELECT user_id FROM users) SELECT * FROM u', '497', true],
    ['WITH (SELECT any(user_id) FROM usage_events) AS x SELECT x', '497', true],
    ['SELECT symbol FROM option_trades UNION ALL SELECT user_id FROM users', '497', true],
    ['SELECT user_id FROM users INTERSECT SELECT user_id FROM users', '497', true],
    ['SELECT t.symbol, u.user_id FROM option_trades AS t CROSS JOIN users AS u', '497', true],
    ['SELECT u.user_id FROM option_trades AS t LEFT JOIN api_keys AS u ON 1 = 1', '497', true],
    [`SELECT 1 AS hit WHERE '${USER_ID}' IN (SELECT user_id FROM users)`, '497', false],
    [`SELECT 1 AS hit WHERE '${USER_ID}' IN users`, '497', false],
    ['SELECT * FROM {t:Identifier}', '497', true],
    // table functions
    // merge() sees only the tables the reader may read: none matches
    ["SELECT * FROM merge('default', '^(users|api_keys|usage_events)$')", '636', true],
    ["SELECT * FROM merge(currentDatabase(), '^api')", '636', true],
    ["SELECT * FROM merge(REGEXP('.*'), '^usage')", '636', true],
    ["SELECT user_id FROM merge('default', '^u')", '636', true],
    ['SELECT * FROM view(SELECT * FROM users)', '497', true],
    ['SELECT * FROM mergeTreeIndex(default, users)', '497', true],
    ['SELECT * FROM mergeTreeIndex(default, api_keys, with_marks = true)', '497', true],
    ['SELECT * FROM loop(default, users) LIMIT 1', '497', true],
    ["SELECT * FROM remote('127.0.0.1', default.users)", '497', false],
    ["SELECT * FROM remoteSecure('127.0.0.1', default, api_keys)", '497', false],
    ["SELECT * FROM cluster('default', default.users)", '701', false],
    [`SELECT * FROM file('${dir}/store/*/*/*/*.bin', RawBLOB)`, '497', false],
    ["SELECT * FROM file('/etc/passwd', LineAsString)", '497', false],
    [`SELECT * FROM \`${dir}/gex-access/users-default.xml\``, '497', false],
    ["SELECT * FROM url('http://127.0.0.1:9/?query=SELECT+1', LineAsString)", '497', false],
    ["SELECT * FROM input('user_id String')", '477', false],
    ['SELECT * FROM format(JSONEachRow, \'{"user_id":1}\')', '497', false],
    ["SELECT * FROM sqlite('/tmp/none.db', 'users')", '497', false],
    ["SELECT * FROM executable('cat', TSV, 'x String', (SELECT user_id FROM users))", '497', false],
    // EXPLAIN, DESCRIBE, SHOW CREATE, EXISTS on the account tables
    ['EXPLAIN SELECT * FROM users', '497', false],
    ['EXPLAIN ESTIMATE SELECT * FROM api_keys', '497', false],
    ['DESCRIBE TABLE users', '497', false],
    ['SHOW CREATE TABLE api_keys', '497', false],
    ['EXISTS TABLE usage_events', '497', false],
  ];
}

/** Statements that are not reads, or leave the reader's role: the engine's parser tells the kind, before anything runs. */
function statementAttacks(dir: string): (readonly [string, string])[] {
  return [
    ['SET ROLE gex_writer', '164'],
    ['SET ROLE ALL', '164'],
    ['/* comment */ set role DEFAULT', '164'],
    ['SET ROLE gex_writer; SELECT * FROM users', '62'],
    ['SELECT 1; SELECT user_id FROM users', '62'],
    ["SELECT ';'; SET ROLE gex_writer", '62'],
    ['EXECUTE AS default SELECT * FROM users', '164'],
    ['KILL QUERY WHERE 1', '164'],
    ['SYSTEM RELOAD USERS', '164'],
    ['GRANT SELECT ON default.users TO gex_reader', '164'],
    ['CREATE VIEW sneaky AS SELECT * FROM users', '164'],
    [`INSERT INTO usage_events (user_id, month, units, ts, instance) VALUES ('x', 202601, 1, now64(3), 'x')`, '164'],
    ['USE system', '164'],
    [`SELECT 1 INTO OUTFILE '${dir}/out-1.txt'`, '164'],
    [`SELECT 1 INTO OUTFILE '${dir}/out-2.txt' APPEND`, '164'],
    [`EXPLAIN SELECT 1 INTO OUTFILE '${dir}/out-3.txt'`, '164'],
    [`SHOW TABLES INTO OUTFILE '${dir}/out-4.txt'`, '164'],
    [`(SELECT 1) UNION ALL (SELECT 2) INTO OUTFILE '${dir}/out-5.txt' TRUNCATE`, '164'],
    ['SELECT 1 SETTINGS readonly = 0', '164'],
  ];
}

/** Discovery that answers (200) without any account row, table name or statement text. */
const DISCOVERY = [
  "SELECT name FROM system.tables WHERE database = 'default'",
  "SELECT table, name FROM system.columns WHERE database = 'default'",
  'SELECT table, rows FROM system.parts WHERE active',
  'SELECT table, column FROM system.parts_columns',
  "SELECT table_name FROM information_schema.tables WHERE table_schema = 'default'",
  "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'default'",
  'SHOW TABLES',
  'SHOW DATABASES',
  'SELECT query FROM system.processes',
  'SHOW PROCESSLIST',
  'SELECT name, last_error_message FROM system.errors',
  'SELECT * FROM system.mutations',
  'SELECT * FROM system.dictionaries',
  'EXPLAIN SYNTAX SELECT * FROM users',
  "SELECT * FROM viewIfPermitted(SELECT user_id FROM users ELSE null('user_id String'))",
];

const ACCOUNT_NAME = new RegExp(`\\b(${ACCOUNT_TABLES.join('|')})\\b`);

test(
  'the SQL endpoint reader: market data, never the account tables (names, subqueries, views, table functions, system tables)',
  { timeout: 300_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gex-reader-access-'));
    const store = await createStore({ dataPath: dir });
    await migrate(store);
    await store.insert('users', [
      { user_id: USER_ID, plan: 'bundle_monthly', status: 'active', evaluation: false, updated_at: Date.now() },
    ]);
    await store.insert('api_keys', [
      { key_hash: KEY_HASH, key_id: `kid-${SENTINEL}`, user_id: USER_ID, created_at: Date.now(), revoked_at: null, updated_at: Date.now() },
    ]);
    await store.insert('usage_events', [{ user_id: USER_ID, month: 202601, units: 7, ts: Date.now(), instance: SENTINEL }]);
    await store.insert(
      'option_trades',
      [0, 1, 2].map((i) => optionTradeRow(optionTrade(i))),
    );
    const http = await startClickHouseHttp({ dataPath: dir, database: 'default', host: '127.0.0.1', port: 0, adminToken: TOKEN });
    const base = http.url;
    const problems: string[] = [];
    // A leak: SENTINEL in the answer more often than in the query (an error message may quote the query).
    const count = (text: string) => text.toLowerCase().split(SENTINEL).length - 1;
    const leaks = (a: Answer, sql = '') => count(a.text) > count(sql);
    try {
      // Market data answers, as Grafana's ClickHouse source asks (user default, no password, Native, max_execution_time).
      assert.deepEqual(await post(base, 'SELECT count() FROM option_trades'), { status: 200, code: null, text: '3\n' });
      const grafana = await fetch(`${base}/?database=default&default_format=Native&max_execution_time=60`, {
        method: 'POST',
        body: "SELECT timeZone() AS tz, getSetting('max_execution_time') AS t",
        headers: { authorization: `Basic ${Buffer.from('default:').toString('base64')}` },
      });
      const native = Buffer.from(await grafana.arrayBuffer()).toString('latin1');
      assert.equal(grafana.status, 200, native);
      assert.ok(native.includes('UTC') && native.includes('tz'), 'Native block with the session time zone');
      const joined = await post(base, 'WITH t AS (SELECT * FROM option_trades) SELECT count() FROM t JOIN option_trades USING id');
      assert.equal(joined.text, '3\n', joined.text);
      assert.equal((await post(base, "SELECT count() FROM merge('default', '^option_trades$')")).text, '3\n');
      assert.equal((await post(base, "SELECT count() FROM system.parts WHERE table = 'option_trades' AND active")).status, 200);
      // Every table of the schema but the account tables is readable (SHOW TABLES as the reader = admin's minus accounts).
      const all = (await post(base, 'SHOW TABLES', { admin: true })).text.trim().split('\n');
      const readable = (await post(base, 'SHOW TABLES')).text.trim().split('\n');
      assert.deepEqual(
        readable,
        all.filter((t) => !(ACCOUNT_TABLES as readonly string[]).includes(t)),
      );
      assert.ok(all.includes('users') && readable.includes('option_trades') && readable.includes('gex_snapshots'));

      for (const [sql, code, adminLeaks] of dataAttacks(dir)) {
        const query = sql.includes('{t:Identifier}') ? '?param_t=users' : '';
        if (adminLeaks && !leaks(await post(base, sql, { admin: true, query }))) problems.push(`admin does not see the rows: ${sql}`);
        const r = await post(base, sql, { query });
        if (r.status === 200 || r.code !== code || leaks(r, sql))
          problems.push(`${sql} -> ${r.status} ${r.code ?? ''} ${r.text.slice(0, 160)}`);
      }
      for (const [sql, code] of statementAttacks(dir)) {
        const r = await post(base, sql);
        if (r.code !== code || leaks(r, sql)) problems.push(`${sql} -> ${r.status} ${r.code ?? ''} ${r.text.slice(0, 160)}`);
        if (code === '164' && !/readonly mode/.test(r.text)) problems.push(`${sql}: message ${r.text.slice(0, 160)}`);
      }
      for (const n of [1, 2, 3, 4, 5]) if (existsSync(join(dir, `out-${n}.txt`))) problems.push(`INTO OUTFILE wrote out-${n}.txt`);
      // No false refusals: comments and string literals that mention INTO OUTFILE or SET ROLE are plain reads.
      for (const sql of [
        "SELECT 'x INTO OUTFILE y' AS s /* INTO OUTFILE 'z' */",
        "SELECT 'SET ROLE gex_writer'",
        'SELECT 1;',
        "SELECT 'file(x)' AS file",
      ])
        if ((await post(base, sql)).status !== 200) problems.push(`refused a read: ${sql}`);

      // Files of the host: the file() function (no grant guards it in the engine), in SHOW … WHERE as a yes/no oracle,
      // in a lambda, and wrapped in an admin's user-defined function.
      const hostFile = join(dir, 'gex-access', 'users-default.xml');
      assert.equal((await post(base, 'CREATE FUNCTION read_it AS (p) -> file(p)', { admin: true })).status, 200);
      for (const sql of [
        `SELECT file('${hostFile}')`,
        `SELECT \`file\`('${hostFile}') AS f`,
        `SELECT arrayMap(p -> file(p), ['${hostFile}'])`,
        `SELECT read_it('${hostFile}')`,
        `SHOW TABLES WHERE position(file('${hostFile}'), '<roles>') > 0`,
        `SHOW COLUMNS FROM option_trades WHERE file('${hostFile}') != ''`,
      ]) {
        const shows = sql.startsWith('SHOW');
        if (!shows && !(await post(base, sql, { admin: true })).text.includes('<roles>')) problems.push(`admin does not read: ${sql}`);
        const r = await post(base, sql);
        if (r.code !== '497' || r.text.includes('<roles>')) problems.push(`${sql} -> ${r.status} ${r.code ?? ''} ${r.text.slice(0, 160)}`);
      }

      // Settings: a reader's own limits pass, anything else stays in readonly mode; ClickHouse's `role` parameter is no way out.
      for (const q of ['?readonly=0', '?role=gex_writer', '?max_threads=1', '?output_format_schema=/tmp/x.capnp', '?dialect=prql'])
        if ((await post(base, 'SELECT user_id FROM users', { query: q })).status === 200) problems.push(`setting ${q} opened the table`);
      if ((await post(base, 'SELECT 1', { query: '?max_result_rows=5&max_execution_time=3' })).status !== 200)
        problems.push('reader limits refused');

      // Views (INVOKER and DEFINER), a dictionary and a copy the admin made over the account tables: readers read only the
      // schema's own tables.
      for (const ddl of [
        'CREATE VIEW acct_view AS SELECT user_id, plan FROM users',
        "CREATE VIEW acct_merge AS SELECT * FROM merge(currentDatabase(), '^users$')",
        'CREATE DICTIONARY acct_dict (key_hash String, user_id String) PRIMARY KEY key_hash ' +
          "SOURCE(CLICKHOUSE(TABLE 'api_keys')) LAYOUT(COMPLEX_KEY_HASHED()) LIFETIME(0)",
        'CREATE TABLE acct_copy ENGINE = MergeTree ORDER BY user_id AS SELECT user_id FROM users',
        'CREATE VIEW acct_definer DEFINER = default SQL SECURITY DEFINER AS SELECT user_id FROM users',
      ])
        assert.equal((await post(base, ddl, { admin: true })).status, 200, ddl);
      for (const sql of [
        'SELECT * FROM acct_view',
        'SELECT * FROM acct_merge',
        `SELECT dictGet('default.acct_dict', 'user_id', tuple('${KEY_HASH}'))`,
        "SELECT * FROM dictionary('default.acct_dict')",
        'SELECT * FROM acct_dict',
        'SELECT * FROM acct_copy',
        'SELECT * FROM acct_definer',
      ]) {
        if (!leaks(await post(base, sql, { admin: true }))) problems.push(`admin does not see the rows: ${sql}`);
        const r = await post(base, sql);
        if (r.status === 200 || leaks(r, sql)) problems.push(`${sql} -> ${r.status} ${r.code ?? ''} ${r.text.slice(0, 160)}`);
      }

      // Other sessions' statement texts and errors (they carry bound values) are hidden while they run.
      const slow = post(base, `SELECT sleep(2), '${SENTINEL}' AS s FROM users WHERE user_id = '${USER_ID}'`, { admin: true });
      await new Promise((r) => setTimeout(r, 500));
      if (!leaks(await post(base, 'SELECT query FROM system.processes', { admin: true })))
        problems.push('admin does not see the running query');
      await post(base, `SELECT throwIf(1, '${SENTINEL}')`, { admin: true });
      for (const sql of DISCOVERY) {
        const r = await post(base, sql);
        if (r.status !== 200 || leaks(r) || ACCOUNT_NAME.test(r.text.replace(/FROM users/g, '')))
          problems.push(`${sql} -> ${r.status} ${r.text.slice(0, 200)}`);
      }
      await slow;
      assert.deepEqual(problems, []);
      // The admin (and the product) still read and write the account tables.
      assert.equal((await post(base, 'SELECT count() FROM users', { admin: true })).text, '1\n');
      assert.deepEqual(await store.query('SELECT user_id FROM users FINAL'), [{ user_id: USER_ID }]);
      const xml = readFileSync(join(dir, 'gex-access', 'users-default.xml'), 'utf8');
      assert.match(xml, /GRANT SELECT, SHOW ON default\.option_trades</);
      assert.doesNotMatch(xml, /ON default\.(users|api_keys|usage_events)</);
    } finally {
      await http.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test('the account tables are those of 010_accounts.sql; no other table or view of the schema reads them', () => {
  const migrations = loadMigrations();
  const statements = migrations.flatMap((m) => m.statements.map((s) => ({ name: m.name, s })));
  const accountsFile = statements.filter((x) => x.name.endsWith('accounts'));
  const created = accountsFile.flatMap((x) => /CREATE TABLE IF NOT EXISTS (\w+)/.exec(x.s)?.slice(1) ?? []);
  assert.deepEqual(created.sort(), [...ACCOUNT_TABLES].sort());
  const readers = statements.filter((x) => !x.name.endsWith('accounts') && ACCOUNT_NAME.test(x.s.replace(/--.*$/gm, '')));
  assert.deepEqual(
    readers.map((x) => `${x.name}: ${x.s.slice(0, 80)}`),
    [],
  );
});

test('the endpoint does not start on an engine opened without the access configuration', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gex-reader-plain-'));
  const plain = new Session(dir);
  try {
    await plain.queryAsync('SELECT 1');
    await assert.rejects(
      startClickHouseHttp({ dataPath: dir, database: 'default', host: '127.0.0.1', port: 0 }),
      /opened without the access configuration for database default/,
    );
  } finally {
    plain.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
