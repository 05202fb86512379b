import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStore } from './store.ts';
import { migrate } from './migrate.ts';
import { startClickHouseHttp } from './http-endpoint.ts';

const TOKEN = 'admin-token-for-tests';

async function post(
  url: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; code: string | null; text: string }> {
  const res = await fetch(url, { method: 'POST', body, headers });
  return { status: res.status, code: res.headers.get('x-clickhouse-exception-code'), text: await res.text() };
}

test(
  'ClickHouse HTTP endpoint over the embedded store: read-only users, the admin token writes, @clickhouse/client shares the store',
  { timeout: 120_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gex-chhttp-'));
    const store = await createStore({ dataPath: dir });
    await migrate(store);
    await store.command('CREATE TABLE probe (id UInt32, name String) ENGINE = MergeTree ORDER BY id');
    const http = await startClickHouseHttp({ dataPath: dir, database: 'default', host: '127.0.0.1', port: 0, adminToken: TOKEN });
    try {
      assert.equal(await (await fetch(`${http.url}/ping`)).text(), 'Ok.\n');
      // query in the body, in the URL, with param_* placeholders and default_format
      assert.equal((await post(`${http.url}/`, 'SELECT 1 + 1')).text, '2\n');
      const q = encodeURIComponent('SELECT {x:UInt32} * 2 AS y, {s:String} AS s');
      assert.equal(
        await (await fetch(`${http.url}/?query=${q}&param_x=21&param_s=it%27s&default_format=JSONEachRow`)).text(),
        '{"y":"42","s":"it\'s"}\n',
        'UInt64 quoted in JSON, as a ClickHouse server does by default',
      );
      // readers: writes, DDL and settings changes fail in the engine (READONLY, code 164 -> 403)
      for (const [sql, url] of [
        ["INSERT INTO probe VALUES (1, 'x')", '/'],
        ['CREATE TABLE sneaky (x UInt8) ENGINE = Memory', '/'],
        ['DROP TABLE probe', '/'],
        ['SELECT 1', '/?max_threads=1'],
        ['SELECT 1 SETTINGS readonly = 0', '/'],
      ] as const) {
        const r = await post(`${http.url}${url}`, sql, { 'x-clickhouse-user': 'analyst' });
        assert.equal(r.status, 403, `${sql}: ${r.text}`);
        assert.equal(r.code, '164');
        assert.match(r.text, /readonly mode/);
      }
      // the admin token writes: an INSERT with its data in the body, query in the URL
      const insert = encodeURIComponent('INSERT INTO probe FORMAT JSONEachRow');
      const auth = { authorization: `Basic ${Buffer.from(`admin:${TOKEN}`).toString('base64')}` };
      assert.equal((await post(`${http.url}/?query=${insert}`, '{"id":1,"name":"a"}\n{"id":2,"name":"b"}\n', auth)).status, 200);
      assert.equal((await post(`${http.url}/`, 'SELECT count() FROM probe', auth)).text, '2\n');
      // readers read the schema's tables, not one an admin made (clickhouse/reader-access.test.ts tries every way in)
      assert.equal((await post(`${http.url}/`, 'SELECT count() FROM probe')).code, '497');
      const wrong = await post(`${http.url}/`, 'SELECT 1', { 'x-clickhouse-user': 'admin', 'x-clickhouse-key': 'nope' });
      assert.deepEqual([wrong.status, wrong.code], [403, '516']);
      // settings of one request do not leak into the next, nor into the product's session
      assert.equal((await post(`${http.url}/?max_threads=3`, "SELECT getSetting('max_threads')", auth)).text, '3\n');
      assert.notEqual((await post(`${http.url}/`, "SELECT getSetting('max_threads')", auth)).text, '3\n');
      assert.deepEqual(await store.query("SELECT getSetting('readonly') AS r"), [{ r: 0 }]);
      const syntax = await post(`${http.url}/`, 'SELEC 1');
      assert.deepEqual([syntax.status, syntax.code], [400, '62']);
      // the product's own store client, pointed at the endpoint with the admin token, reads and writes
      const shared = await createStore({ url: http.url, username: 'admin', password: TOKEN, dataPath: dir });
      try {
        await shared.insert('probe', [{ id: 3, name: 'c' }]);
        assert.deepEqual(await shared.query('SELECT id, name FROM probe WHERE id >= {min:UInt32} ORDER BY id', { min: 2 }), [
          { id: 2, name: 'b' },
          { id: 3, name: 'c' },
        ]);
        const cols = await shared.queryColumns('SELECT toUInt64(id) AS id FROM probe ORDER BY id');
        assert.equal(cols.rows, 3);
      } finally {
        await shared.close();
      }
      const reader = await createStore({ url: http.url, username: 'analyst', dataPath: dir });
      try {
        // The store client's settings equal the endpoint profile's (UTC, quoted 64-bit integers): a reader may send them
        // (an unchanged value), not change any, and not write.
        assert.deepEqual(await reader.query('SELECT count() AS n FROM schema_migrations WHERE version = 1'), [{ n: '1' }]);
        await assert.rejects(reader.query('SELECT 1 SETTINGS max_threads = 1'), /readonly mode/);
        await assert.rejects(reader.insert('probe', [{ id: 9, name: 'x' }]), /readonly mode/);
      } finally {
        await reader.close();
      }
    } finally {
      await http.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test('param values are read in the escaped format clients send; array literals pass as they are', async () => {
  const { unescapeParam } = await import('./http-endpoint.ts');
  assert.equal(unescapeParam("x\\'; --\\\\\\n\\t"), "x'; --\\\n\t");
  assert.equal(unescapeParam("['a\\'b','c']"), "['a\\'b','c']");
  assert.equal(unescapeParam('plain'), 'plain');
});
