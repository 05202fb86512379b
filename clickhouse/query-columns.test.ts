import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeNative } from './native.ts';
import { byteLengthAt, cellAt, columnOf, decodeRowBinary, textAt, type Cell, type ColumnsResult } from './row-binary.ts';
import { createStore, StoreQueryError, type Store } from './store.ts';
import { openTempStore } from './testing/temp-store.ts';

/** Store.queryColumns: the compact Native read path (RowBinaryWithNamesAndTypes for an empty result's header), on chDB and on a server. */

const SQL = `SELECT number AS n, toFloat64(number) / 3 + {x:Float64} AS f, if(number = 1, NULL, number * 1e-7) AS maybe,
  toInt64(-1767225600000) AS ms, toUInt32(number + 1) AS u, toInt8(-1) AS i8, toFloat32(0.5) AS f32, toDateTime(60, 'UTC') AS dt,
  concat('v', toString(number), '\\tä') AS s, CAST(number AS SimpleAggregateFunction(max, UInt64)) AS sa, toLowCardinality(toString(number)) AS lc, if(number = 0, NULL, 'x') AS ns
FROM numbers({k:UInt32}) ORDER BY n`;

/** RowBinaryWithNamesAndTypes header: column count, names, types (short strings: one-byte lengths). */
const header = (names: readonly string[], types: readonly string[]): Buffer =>
  Buffer.concat([
    Buffer.from([names.length]),
    ...[...names, ...types].map((x) => Buffer.concat([Buffer.from([Buffer.byteLength(x)]), Buffer.from(x)])),
  ]);

const str = (x: string): Buffer => Buffer.concat([Buffer.from([Buffer.byteLength(x)]), Buffer.from(x)]);

/** One Native block: column count, row count, then per column its name, type and data. */
const nativeBlock = (rows: number, cols: readonly (readonly [string, string, Buffer])[]): Buffer =>
  Buffer.concat([Buffer.from([cols.length, rows]), ...cols.flatMap(([name, type, data]) => [str(name), str(type), data])]);

const u64 = (n: number): Buffer => {
  const b = Buffer.alloc(8);
  b.writeUInt32LE(n, 0);
  return b;
};

/** The columns as plain arrays of cells. */
const plain = (r: ColumnsResult): Record<string, Cell[]> =>
  Object.fromEntries(
    r.names.map((n) => [
      n,
      Array.from({ length: r.rows }, (_, i) => cellAt(r.columns[n] as NonNullable<ColumnsResult['columns'][string]>, i)),
    ]),
  );

describe('embedded store: queryColumns', () => {
  let store: Store;
  let dispose: () => Promise<void>;
  before(async () => {
    ({ store, dispose } = await openTempStore());
  });
  after(async () => dispose());

  test('every supported type, NULLs, params; doubles exactly as stored', async () => {
    const r = await store.queryColumns(SQL, { x: 95_000.123, k: 3 });
    assert.deepEqual(r.names, ['n', 'f', 'maybe', 'ms', 'u', 'i8', 'f32', 'dt', 's', 'sa', 'lc', 'ns']);
    assert.equal(r.rows, 3);
    assert.equal(r.columns['f']?.kind, 'number');
    assert.equal(r.columns['s']?.kind, 'string');
    assert.deepEqual(plain(r), {
      n: [0, 1, 2],
      f: [0, 1, 2].map((i) => i / 3 + 95_000.123),
      maybe: [0, null, 2e-7],
      ms: [-1767225600000, -1767225600000, -1767225600000],
      u: [1, 2, 3],
      i8: [-1, -1, -1],
      f32: [0.5, 0.5, 0.5],
      dt: [60, 60, 60],
      s: ['v0\tä', 'v1\tä', 'v2\tä'],
      sa: [0, 1, 2],
      lc: ['0', '1', '2'],
      ns: [null, 'x', 'x'],
    });
    const empty = await store.queryColumns('SELECT number AS n FROM numbers(0)');
    assert.deepEqual([empty.names, empty.rows, plain(empty)], [['n'], 0, { n: [] }]);
    // Growth past the first block of 1,024 rows, NULLs included.
    const many = await store.queryColumns('SELECT number AS n, if(number % 1000 = 7, NULL, number / 2) AS h FROM numbers(5000) ORDER BY n');
    assert.deepEqual(
      plain(many)['h'],
      Array.from({ length: 5000 }, (_, i) => (i % 1000 === 7 ? null : i / 2)),
    );
    // All columns fixed-width and not Nullable: the one-stride path.
    const fixed = await store.queryColumns(
      'SELECT toUInt32(number) AS n, number / 4 AS f, -toInt64(number) * 1000000000 AS i, toUInt8(1) AS b FROM numbers(3000) ORDER BY n',
    );
    assert.equal(fixed.rows, 3000);
    assert.deepEqual(plain(fixed)['f']?.slice(0, 3), [0, 0.25, 0.5]);
    assert.deepEqual(plain(fixed)['i']?.slice(2998), [-2998e9, -2999e9]);
    assert.deepEqual(plain(fixed)['b']?.slice(0, 2), [1, 1]);
    // Every fixed-width type on the one-stride path, signs and extremes included.
    const types = await store.queryColumns(
      `SELECT toInt8(-128 + number) AS i8, toUInt16(65535 - number) AS u16, toInt16(-32768 + number) AS i16, toInt32(-2147483648 + number) AS i32,
         toFloat32(0.25 - 0.5 * number) AS f32, toUInt64(9007199254740991 - number) AS u64, toInt64(-9007199254740991 + number) AS i64, toDate(number) AS d
       FROM numbers(2) ORDER BY i8`,
    );
    assert.deepEqual(plain(types), {
      i8: [-128, -127],
      u16: [65535, 65534],
      i16: [-32768, -32767],
      i32: [-2147483648, -2147483647],
      f32: [0.25, -0.25],
      u64: [9007199254740991, 9007199254740990],
      i64: [-9007199254740991, -9007199254740990],
      d: [0, 1],
    });
  });

  test('an unsupported type, a ClickHouse error and a placeholder mismatch are errors', async () => {
    await assert.rejects(store.queryColumns('SELECT [1] AS a'), /unsupported column type Array\(UInt8\)/);
    await assert.rejects(
      store.queryColumns('SELECT * FROM no_such_table'),
      (e: unknown) => e instanceof StoreQueryError && e.type === 'UNKNOWN_TABLE',
    );
    await assert.rejects(
      store.queryColumns('SELECT 1', { unused: 1 }),
      (e: unknown) => e instanceof StoreQueryError && /unused/.test(e.message),
    );
  });

  test('views: a String column read as ranges of the result equals the strings read without; an empty result has an empty view', async () => {
    const sql = `SELECT number AS n, repeat(concat('p', toString(number), 'é'), 1 + number % 5) AS s, if(number % 3 = 0, NULL, toString(number)) AS m
      FROM numbers({k:UInt32}) ORDER BY n`;
    const viewed = await store.queryColumns(sql, { k: 70_000 }, { views: ['s', 'm'] });
    assert.deepEqual([viewed.columns['n']?.kind, viewed.columns['s']?.kind, viewed.columns['m']?.kind], ['number', 'bytes', 'bytes']);
    assert.deepEqual(plain(viewed), plain(await store.queryColumns(sql, { k: 70_000 })));
    const s = columnOf(viewed, 's', 'bytes', 'test');
    assert.equal(textAt(s, 69_999), 'p69999é'.repeat(5));
    const empty = await store.queryColumns(sql, { k: 0 }, { views: ['s'] });
    assert.deepEqual([empty.rows, empty.columns['s']?.kind, empty.columns['m']?.kind], [0, 'bytes', 'string']);
    await assert.rejects(store.queryColumns(sql, { k: 1 }, { views: ['n'] }), /n kept as a view is not a String column/);
    // Released or not, the embedded store's results stay readable (it leaves them to the collector).
    store.releaseColumns(viewed);
    assert.equal(textAt(s, 1), 'p1ép1é');
  });

  test('leaves query() as it was (nothing persists in the chDB session)', async () => {
    await store.queryColumns('SELECT 1 AS a');
    assert.deepEqual(await store.query('SELECT 1 AS a, toUInt64(2) AS b'), [{ a: 1, b: '2' }]);
  });
});

describe('server store: queryColumns', () => {
  test('sends the statement with FORMAT Native and the params as HTTP parameters', async () => {
    // What a server sends for that statement (the same bytes chDB produces; checked just below).
    const v = Buffer.alloc(8);
    v.writeDoubleLE(0.1 + 0.2);
    const body = nativeBlock(1, [
      ['t', 'UInt32', Buffer.from([60, 0, 0, 0])],
      ['v', 'Float64', v],
      ['z', 'Nullable(Float64)', Buffer.concat([Buffer.from([1]), Buffer.alloc(8)])],
      ['s', 'String', str('okx')],
    ]);
    const embedded = await openTempStore();
    try {
      const q = "SELECT toUInt32(60) AS t, 0.1 + 0.2 AS v, CAST(NULL AS Nullable(Float64)) AS z, 'okx' AS s";
      assert.deepEqual(await embedded.store.queryColumns(q), decodeNative(body));
    } finally {
      await embedded.dispose();
    }
    let seen: { url: string; body: string } | undefined;
    const srv: Server = createServer((req: IncomingMessage, res) => {
      let sent = '';
      req.on('data', (c: Buffer) => (sent += c.toString('utf8')));
      req.on('end', () => {
        seen = { url: req.url ?? '', body: sent };
        res.writeHead(200, { 'x-clickhouse-format': 'Native' });
        res.end(body);
      });
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const { port } = srv.address() as AddressInfo;
    const store = await createStore({ url: `http://127.0.0.1:${port}`, dataPath: '/nonexistent' });
    try {
      const r = await store.queryColumns('SELECT t, v, z, s FROM x WHERE s = {s:String}', { s: 'BTCUSDT' });
      assert.deepEqual([r.names, r.rows, plain(r)], [['t', 'v', 'z', 's'], 1, { t: [60], v: [0.1 + 0.2], z: [null], s: ['okx'] }]);
      assert.equal(new URL(seen?.url ?? '', 'http://x').searchParams.get('param_s'), 'BTCUSDT');
      assert.match(seen?.body ?? '', /FORMAT Native\s*$/);
    } finally {
      await store.close();
      await new Promise<void>((r) => srv.close(() => r()));
    }
  });
});

describe('decodeRowBinary', () => {
  test('empty body, truncated body', () => {
    assert.deepEqual(decodeRowBinary(new Uint8Array()), { names: [], rows: 0, columns: {} });
    assert.throws(() => decodeRowBinary(Buffer.concat([header(['a'], ['UInt32']), Buffer.from([1, 0])])), /truncated/);
    assert.deepEqual(plain(decodeRowBinary(header(['a'], ['UInt32']))), { a: [] });
  });
});

describe('columnOf', () => {
  test('the named column of the asked kind; a missing or other-kind column throws with the reader named', () => {
    const r = decodeRowBinary(Buffer.concat([header(['a', 's'], ['UInt32', 'String']), Buffer.from([7, 0, 0, 0]), str('x')]));
    assert.deepEqual([...columnOf(r, 'a', 'number', 'test read').values], [7]);
    assert.deepEqual(columnOf(r, 's', 'string', 'test read').values, ['x']);
    assert.throws(() => columnOf(r, 's', 'number', 'test read'), /^Error: test read: column s missing or not a number column$/);
    assert.throws(() => columnOf(r, 'b', 'string', 'tape read'), /^Error: tape read: column b missing or not a string column$/);
  });
});

describe('decodeNative', () => {
  test('blocks are concatenated; LowCardinality granules each bring their dictionary; NULL key 0', () => {
    const f = (xs: readonly number[]): Buffer =>
      Buffer.concat(
        xs.map((x) => {
          const b = Buffer.alloc(8);
          b.writeDoubleLE(x);
          return b;
        }),
      );
    const lc = (granules: readonly (readonly [readonly string[], readonly number[]])[]): Buffer =>
      Buffer.concat([
        u64(1),
        ...granules.flatMap(([keys, idx]) => [u64(0x600), u64(keys.length), ...keys.map(str), u64(idx.length), Buffer.from(idx)]),
      ]);
    const body = Buffer.concat([
      nativeBlock(3, [
        ['x', 'Float64', f([1.5, -2, 0.1])],
        [
          'v',
          'LowCardinality(String)',
          lc([
            [['', 'okx'], [1]],
            [
              ['', 'bybit', 'okx'],
              [1, 2],
            ],
          ]),
        ],
        [
          'n',
          'LowCardinality(Nullable(String))',
          lc([
            [
              ['', '', 'a'],
              [0, 2, 1],
            ],
          ]),
        ],
      ]),
      nativeBlock(1, [
        ['x', 'Float64', f([7])],
        ['v', 'LowCardinality(String)', lc([[['', 'deribit'], [1]]])],
        ['n', 'LowCardinality(Nullable(String))', lc([[['', ''], [0]]])],
      ]),
    ]);
    const r = decodeNative(body);
    assert.deepEqual(
      [r.names, r.rows, plain(r)],
      [['x', 'v', 'n'], 4, { x: [1.5, -2, 0.1, 7], v: ['okx', 'bybit', 'okx', 'deribit'], n: [null, 'a', '', null] }],
    );
  });

  test('views: String columns as ranges of the input across blocks, NULL an empty flagged range; other types refused', () => {
    const strings = (xs: readonly string[]): Buffer => Buffer.concat(xs.map(str));
    const body = Buffer.concat([
      nativeBlock(2, [
        ['s', 'String', strings(['ab', 'ä€'])],
        ['m', 'Nullable(String)', Buffer.concat([Buffer.from([0, 1]), strings(['x', ''])])],
        ['k', 'String', strings(['p', 'q'])],
      ]),
      nativeBlock(1, [
        ['s', 'String', strings([''])],
        ['m', 'Nullable(String)', Buffer.concat([Buffer.from([0]), strings(['yz'])])],
        ['k', 'String', strings(['r'])],
      ]),
    ]);
    const r = decodeNative(body, ['s', 'm']);
    const s = columnOf(r, 's', 'bytes', 'test');
    const m = columnOf(r, 'm', 'bytes', 'test');
    assert.equal(r.columns['k']?.kind, 'string', 'a column not named stays strings');
    // Offsets into the input itself (no copy): block 1 opens with 2 bytes of sizes, the name 's' (2) and 'String' (7),
    // so row 0's length is byte 11 and its text bytes 12-13; row 1's 5 bytes follow at 15. Block 1 is 57 bytes long
    // (2 + 18 for s, 24 for m, 13 for k); block 2's empty 's' value lies at 57 + 2 + 9 + 1 = 69.
    assert.equal(s.bytes.buffer, body.buffer);
    assert.deepEqual([...s.starts, ...s.ends], [12, 15, 69, 14, 20, 69]);
    assert.deepEqual([textAt(s, 0), textAt(s, 1), textAt(s, 2), byteLengthAt(s, 1)], ['ab', 'ä€', '', 5]);
    assert.deepEqual([textAt(m, 0), textAt(m, 1), textAt(m, 2)], ['x', null, 'yz']);
    assert.deepEqual(plain(r), plain(decodeNative(body)), 'cellAt reads a view as the string it would have been');
    assert.throws(() => decodeNative(nativeBlock(1, [['a', 'UInt8', Buffer.from([1])]]), ['a']), /a kept as a view is not a String column/);
    const lc = Buffer.concat([u64(1), u64(0x600), u64(2), str(''), str('o'), u64(1), Buffer.from([1])]);
    assert.throws(() => decodeNative(nativeBlock(1, [['v', 'LowCardinality(String)', lc]]), ['v']), /not a String column/);
  });

  test('empty body, truncated block, changing columns, unsupported type', () => {
    assert.deepEqual(decodeNative(new Uint8Array()), { names: [], rows: 0, columns: {} });
    assert.throws(() => decodeNative(nativeBlock(2, [['a', 'UInt32', Buffer.alloc(5)]])), /truncated/);
    const a = nativeBlock(1, [['a', 'UInt8', Buffer.from([1])]]);
    const b = nativeBlock(1, [['b', 'UInt8', Buffer.from([1])]]);
    assert.throws(() => decodeNative(Buffer.concat([a, b])), /different columns/);
    assert.throws(() => decodeNative(nativeBlock(1, [['a', 'UUID', Buffer.alloc(16)]])), /unsupported column type UUID/);
  });

  test('chDB: many blocks and a dictionary larger than one granule read back exactly', async () => {
    const { store, dispose } = await openTempStore();
    try {
      const r = await store.queryColumns(
        `SELECT number AS n, toInt64(number) * -1000 AS ms, toLowCardinality(toString(number % 20000)) AS lc,
           if(number % 7 = 0, NULL, number / 8) AS h
         FROM numbers(300000) ORDER BY n`,
      );
      assert.equal(r.rows, 300_000);
      const p = plain(r);
      for (const i of [0, 1, 7, 65_535, 65_536, 123_457, 299_999]) {
        assert.deepEqual(
          [p['n']?.[i], p['ms']?.[i], p['lc']?.[i], p['h']?.[i]],
          [i, i === 0 ? 0 : -i * 1000, String(i % 20000), i % 7 === 0 ? null : i / 8],
        );
      }
      assert.equal(new Set(p['lc']).size, 20_000);
    } finally {
      await dispose();
    }
  });
});
