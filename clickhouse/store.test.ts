import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { metricsRegistry } from '#platform/metrics/registry.ts';
import { StoreQueryError, StoreUnavailableError } from './errors.ts';
import { migrate } from './migrate.ts';
import { optionTradeRow } from './rows.ts';
import { createStore, type Store } from './store.ts';
import { optionTrade } from './testing/fixtures.ts';
import { openTempStore, VIA_HTTP_ENV } from './testing/temp-store.ts';

const trades = (from: number, n: number): ReturnType<typeof optionTradeRow>[] =>
  Array.from({ length: n }, (_, i) => optionTradeRow(optionTrade(from + i)));

async function count(store: Store, table = 'option_trades'): Promise<string | undefined> {
  const [row] = await store.query<{ n: string }>('SELECT count() AS n FROM {t:Identifier}', { t: table });
  return row?.n;
}

describe('embedded store', () => {
  let store: Store;
  let dispose: () => Promise<void>;
  before(async () => {
    const t = await openTempStore({ maxInsertRows: 100 });
    store = t.store;
    dispose = t.dispose;
    await migrate(store);
  });
  after(async () => dispose());

  test('kind and ping', async () => {
    assert.equal(store.kind, process.env[VIA_HTTP_ENV] === '1' ? 'server' : 'embedded');
    assert.equal(await store.ping(), true);
  });

  test('a retried batch with the same dedup token is stored once; another token is stored', async () => {
    await store.command('TRUNCATE TABLE option_trades');
    const a = trades(0, 1000);
    await store.insert('option_trades', a, { dedupToken: 'batch-a' });
    await store.insert('option_trades', a, { dedupToken: 'batch-a' });
    assert.equal(await count(store), '1000');
    await store.insert('option_trades', trades(1000, 1000), { dedupToken: 'batch-b' });
    assert.equal(await count(store), '2000');
    // 1000 rows > maxInsertRows (100): the chunks get token#0..9 and the retry still dedups chunk by chunk.
    await store.insert('option_trades', trades(1000, 1000), { dedupToken: 'batch-b' });
    assert.equal(await count(store), '2000');
  });

  test('a dedup token does not leak into the next insert or INSERT … SELECT (chDB has one session)', async () => {
    await store.command('TRUNCATE TABLE option_trades');
    await store.insert('option_trades', trades(0, 10), { dedupToken: 'leak-check' });
    await store.insert('option_trades', trades(10, 10));
    await store.command("INSERT INTO option_trades SELECT * REPLACE (concat(id, '-copy') AS id) FROM option_trades");
    assert.equal(await count(store), '40');
  });

  test('concurrent inserts: distinct tokens all stored, repeated token stored once', async () => {
    await store.command('TRUNCATE TABLE option_trades');
    const distinct = Array.from({ length: 8 }, (_, k) => store.insert('option_trades', trades(k * 50, 50), { dedupToken: `c-${k}` }));
    const repeated = Array.from({ length: 5 }, () => store.insert('option_trades', trades(10_000, 50), { dedupToken: 'same' }));
    await Promise.all([...distinct, ...repeated]);
    assert.equal(await count(store), String(8 * 50 + 50));
  });

  test('string params with quotes, semicolons, backslashes are data, not SQL', async () => {
    const nasty = `x'; DROP TABLE option_trades; --"\\\n\t'' OR 1=1`;
    assert.deepEqual(await store.query('SELECT {s:String} AS s, length({s:String}) AS n', { s: nasty }), [
      { s: nasty, n: String(Buffer.byteLength(nasty)) },
    ]);
    await store.insert('option_trades', [{ ...optionTradeRow(optionTrade(77)), id: nasty }]);
    const hit = await store.query<{ id: string }>('SELECT id FROM option_trades WHERE id = {id:String}', { id: nasty });
    assert.deepEqual(hit, [{ id: nasty }]);
    const miss = await store.query('SELECT id FROM option_trades WHERE id = {id:String}', { id: "' OR 1=1 --" });
    assert.deepEqual(miss, []);
    assert.equal(await store.ping(), true);
    assert.notEqual(await count(store), '0');
  });

  test('64-bit integers come back as exact strings', async () => {
    const rows = await store.query(
      "SELECT toUInt64('18446744073709551615') AS u, toInt64('-9223372036854775808') AS i, toUInt64(9007199254740993) AS above53, toUInt32(7) AS small",
    );
    assert.deepEqual(rows, [{ u: '18446744073709551615', i: '-9223372036854775808', above53: '9007199254740993', small: 7 }]);
  });

  test("DateTime64(3,'UTC') params take epoch ms; the session time zone is UTC, also after an insert", async () => {
    await store.insert('option_trades', trades(5_000, 1), { dedupToken: 'tz-check' });
    const rows = await store.query(
      "SELECT toString({t:DateTime64(3, 'UTC')}) AS t, toString(toDateTime(0)) AS epoch, timezone() AS tz, getSetting('session_timezone') AS session_tz",
      { t: 1_700_000_000_123 },
    );
    assert.deepEqual(rows, [{ t: '2023-11-14 22:13:20.123', epoch: '1970-01-01 00:00:00', tz: 'UTC', session_tz: 'UTC' }]);
  });

  test('placeholders and params must match (catches string-built SQL)', async () => {
    await assert.rejects(
      store.query('SELECT 1', { unused: 'x' }),
      (e: unknown) => e instanceof StoreQueryError && /unused/.test(e.message),
    );
    await assert.rejects(
      store.query('SELECT {a:UInt8} AS a'),
      (e: unknown) => e instanceof StoreQueryError && /no value for placeholder/.test(e.message),
    );
    await assert.rejects(store.insert('option_trades; DROP TABLE x', [{}]), StoreQueryError);
  });

  test('ClickHouse errors are StoreQueryError with code and type', async () => {
    await assert.rejects(store.query('SELECT * FROM no_such_table'), (e: unknown) => {
      return (
        e instanceof StoreQueryError &&
        !(e instanceof StoreUnavailableError) &&
        e.code === '60' &&
        e.type === 'UNKNOWN_TABLE' &&
        e.op === 'query'
      );
    });
    await assert.rejects(
      store.insert('option_trades', [{ venue: 'x', ts: 'not a time' }]),
      (e: unknown) => e instanceof StoreQueryError && e.op === 'insert',
    );
  });

  test('metrics: insert rows and durations per table, errors per op', async () => {
    const before =
      (await metricsRegistry.getSingleMetric('gex_store_inserted_rows_total')?.get())?.values.find((v) => v.labels.table === 'liquidations')
        ?.value ?? 0;
    await store.insert('liquidations', [
      {
        venue: 'okx',
        symbol: 'ETHUSDT',
        ts: Date.now(),
        received_at: Date.now(),
        id: 'm1',
        instrument: 'ETH-USDT-SWAP',
        side: 'long',
        price: 1,
        size: 2,
      },
    ]);
    const after = (await metricsRegistry.getSingleMetric('gex_store_inserted_rows_total')?.get())?.values.find(
      (v) => v.labels.table === 'liquidations',
    )?.value;
    assert.equal(after, before + 1);
    const text = await metricsRegistry.metrics();
    assert.match(text, /gex_store_insert_duration_seconds_count\{[^}]*table="liquidations"[^}]*\} [1-9]/);
    assert.match(text, /gex_store_query_duration_seconds_count\{[^}]*\} [1-9]/);
    assert.match(text, /gex_store_errors_total\{[^}]*op="query"[^}]*\} [1-9]/);
  });
});

describe('embedded store: database option', () => {
  test('creates the database and makes it current', async () => {
    const { store, dispose } = await openTempStore({ database: 'gex_test' });
    try {
      await migrate(store);
      assert.deepEqual(await store.query('SELECT currentDatabase() AS db'), [{ db: 'gex_test' }]);
      await store.insert('option_trades', trades(0, 3), { dedupToken: 'db' });
      assert.deepEqual(await store.query('SELECT count() AS n FROM gex_test.option_trades'), [{ n: '3' }]);
    } finally {
      await dispose();
    }
  });
});

describe('server store', () => {
  async function closedPort(): Promise<number> {
    const srv = createNetServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const { port } = srv.address() as AddressInfo;
    await new Promise<void>((r) => srv.close(() => r()));
    return port;
  }

  test('unreachable server: StoreUnavailableError on every op, ping false', async () => {
    const store = await createStore({ url: `http://127.0.0.1:${await closedPort()}`, dataPath: '/nonexistent', requestTimeoutMs: 2000 });
    try {
      assert.equal(store.kind, 'server');
      assert.equal(await store.ping(), false);
      await assert.rejects(store.query('SELECT 1'), (e: unknown) => e instanceof StoreUnavailableError && e.op === 'query');
      await assert.rejects(store.command('SELECT 1'), (e: unknown) => e instanceof StoreUnavailableError && e.op === 'command');
      await assert.rejects(store.insert('t', [{ a: 1 }]), (e: unknown) => e instanceof StoreUnavailableError && e.op === 'insert');
    } finally {
      await store.close();
    }
  });

  test('a proxy answering 502 with a non-ClickHouse body is unavailable, not a query error', async () => {
    const srv: Server = createServer((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>502 Bad Gateway</html>');
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const { port } = srv.address() as AddressInfo;
    const store = await createStore({ url: `http://127.0.0.1:${port}`, dataPath: '/nonexistent' });
    try {
      await assert.rejects(store.query('SELECT 1'), StoreUnavailableError);
    } finally {
      await store.close();
      await new Promise<void>((r) => srv.close(() => r()));
    }
  });

  test('a ClickHouse error body from the server is a StoreQueryError', async () => {
    const srv: Server = createServer((_req, res) => {
      res.writeHead(404, { 'x-clickhouse-exception-code': '60' });
      res.end("Code: 60. DB::Exception: Unknown table expression identifier 'nope'. (UNKNOWN_TABLE) (version 26.7.2.1)\n");
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const { port } = srv.address() as AddressInfo;
    const store = await createStore({ url: `http://127.0.0.1:${port}`, dataPath: '/nonexistent' });
    try {
      await assert.rejects(
        store.query('SELECT * FROM nope'),
        (e: unknown) => e instanceof StoreQueryError && e.code === '60' && e.type === 'UNKNOWN_TABLE',
      );
    } finally {
      await store.close();
      await new Promise<void>((r) => srv.close(() => r()));
    }
  });
});
