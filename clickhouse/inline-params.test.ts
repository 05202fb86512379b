import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Session } from 'chdb';
import { openEngineSession } from './engine-access.ts';
import { inlineParams, stringLiteral } from './inline-params.ts';
import { createStore, type Store } from './store.ts';
import { tempDataPath } from './testing/temp-store.ts';
import { rmSync } from 'node:fs';

describe('inlineParams (pure)', () => {
  test('placeholders become typed literals; the rest of the text is kept', () => {
    assert.equal(
      inlineParams('SELECT {s:String} AS s, { n : Int64 } AS n FROM {t:Identifier} WHERE x IN {a:Array(String)} LIMIT {l:UInt32}', {
        s: "it's",
        n: -42,
        t: 'trades',
        a: ['a', 'b\\c'],
        l: 10,
      }),
      "SELECT CAST('it\\'s' AS String) AS s, CAST(-42 AS Int64) AS n FROM `trades` WHERE x IN CAST(['a','b\\\\c'] AS Array(String)) LIMIT CAST(10 AS UInt32)",
    );
    assert.equal(inlineParams('SELECT 1', {}), 'SELECT 1');
  });

  test('placeholders inside string literals, quoted identifiers and comments are not placeholders', () => {
    const sql = 'SELECT \'{s:String}\' AS a, `{s:String}` AS b, "{s:String}" AS c -- {s:String}\n/* {s:String} */, {s:String} AS d';
    assert.equal(
      inlineParams(sql, { s: 'x' }),
      "SELECT '{s:String}' AS a, `{s:String}` AS b, \"{s:String}\" AS c -- {s:String}\n/* {s:String} */, CAST('x' AS String) AS d",
    );
    // An escaped quote and a doubled quote do not end a literal.
    assert.equal(
      inlineParams("SELECT 'a\\'{s:String}', 'b''{s:String}', {s:String}", { s: 'y' }),
      "SELECT 'a\\'{s:String}', 'b''{s:String}', CAST('y' AS String)",
    );
    // A map literal is not a placeholder.
    assert.equal(inlineParams("SELECT {'k':1} AS m, {n:UInt8} AS n", { n: 1 }), "SELECT {'k':1} AS m, CAST(1 AS UInt8) AS n");
  });

  test('values the engine would bind differently from a literal are left to the engine (null)', () => {
    const none = (type: string, value: unknown) =>
      assert.equal(inlineParams(`SELECT {v:${type}}`, { v: value }), null, `${type} ${String(value)}`);
    none('Int64', 1.5);
    none('Int64', 2 ** 53);
    none('Int64', '1e3');
    none('UInt32', null);
    none('Float64', Number.NaN);
    none('Float64', Infinity);
    none('Float64', '1.5');
    none('String', 5);
    none("DateTime64(3, 'UTC')", 1_700_000_000_123);
    none("DateTime64(3, 'UTC')", '2023-11-14 22:13:20.123');
    none('Nullable(String)', 'a');
    none('Array(Int64)', [1, 2.5]);
    none('Array(String)', 'a');
    none('Identifier', 'a; DROP TABLE x');
    none('Identifier', '`a`');
    none('Identifier', 'system.one');
    assert.equal(inlineParams('SELECT {v:String}', {}), null);
  });

  test('string literals escape what can end them, and the control characters', () => {
    assert.equal(stringLiteral("a'b\\c\0\b\f\n\r\td"), "'a\\'b\\\\c\\0\\b\\f\\n\\r\\td'");
  });
});

/** Values of every inlined type, with the awkward ones: quotes, escapes, control characters, extremes. */
const STRINGS = [
  '',
  'BTCUSDT',
  "it's",
  "''",
  '\\',
  "\\'",
  "a\\'); DROP TABLE x; --",
  '\0\b\f\n\r\t\v',
  '{s:String}',
  '日本語 ✓ 😀',
  '\\N',
  "'; SELECT 1; '",
  String.fromCharCode(...Array.from({ length: 127 }, (_, i) => i + 1)),
];
const INTS = [0, 1, -1, 127, -128, 255, 65_535, 2 ** 31 - 1, -(2 ** 31), 2 ** 32 - 1, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER];
// chDB's binder refuses integer-valued doubles beyond 2^53 (1e21); they are inlined exactly (the last test).
const FLOATS = [0, -0, 1.5, -2.25, 0.1, 1e-7, 5e-324, 123_456.789_012_345, 1 / 3, 2 ** 52 + 0.5, -1.5e-300];

describe('inlined literals read as the engine binds (chDB)', () => {
  let dataPath: string;
  let store: Store;
  let session: Session;
  before(async () => {
    dataPath = tempDataPath();
    store = await createStore({ dataPath });
    session = openEngineSession(dataPath, 'default');
  });
  after(async () => {
    session.close();
    await store.close();
    rmSync(dataPath, { recursive: true, force: true });
  });

  /** The engine's binding of `sql` (chDB's binder) and the inlined text's answer, as JSON lines. */
  async function both(sql: string, params: Record<string, unknown>): Promise<[string, string]> {
    const inlined = inlineParams(sql, params);
    assert.notEqual(inlined, null, sql);
    const bound = await session.queryBindAsync(sql, params, { format: 'JSONEachRow' });
    const literal = await session.queryAsync(inlined ?? '', { format: 'JSONEachRow' });
    return [literal.text(), bound.text()];
  }

  test('strings, integers of each width, floats and arrays give the same values and types', async () => {
    for (const s of STRINGS) {
      const [a, b] = await both('SELECT {v:String} AS v, toTypeName(v) AS t, length(v) AS n', { v: s });
      assert.equal(a, b, JSON.stringify(s));
      assert.equal((JSON.parse(a) as { v: string }).v, s);
    }
    for (const [type, values] of [
      ['Int64', INTS],
      ['Int32', INTS.filter((v) => Math.abs(v) < 2 ** 31 && v !== 2 ** 31 - 1 + 1)],
      ['UInt32', INTS.filter((v) => v >= 0 && v < 2 ** 32)],
      ['UInt8', INTS.filter((v) => v >= 0 && v < 256)],
      ['UInt64', INTS.filter((v) => v >= 0)],
      ['Float64', FLOATS],
    ] as const) {
      for (const v of values) {
        const [a, b] = await both(`SELECT {v:${type}} AS v, toTypeName(v) AS t, {v:${type}} * 3 AS m`, { v });
        assert.equal(a, b, `${type} ${v}`);
      }
    }
    const [a, b] = await both('SELECT {a:Array(String)} AS a, {i:Array(Int64)} AS i, toTypeName(i) AS t', {
      a: STRINGS,
      i: INTS,
    });
    assert.equal(a, b);
    const [c, d] = await both("SELECT {n:Int64} AS n, {s:String} AS s WHERE {s:String} != ''", { n: '-9223372036854775808', s: '9' });
    assert.equal(c, d);
  });

  test('in LIMIT, a table function and an identifier', async () => {
    const [a, b] = await both('SELECT number AS n FROM numbers({k:UInt64}) WHERE n % 2 = 0 LIMIT {l:UInt32}', { k: 10, l: 3 });
    assert.equal(a, b);
    assert.equal(a, '{"n":0}\n{"n":2}\n{"n":4}\n');
    await session.queryAsync('CREATE TABLE IF NOT EXISTS ident_check (x UInt8) ENGINE = Memory');
    await session.queryAsync('INSERT INTO ident_check VALUES (7)');
    const [c, d] = await both('SELECT x FROM {t:Identifier}', { t: 'ident_check' });
    assert.equal(c, d);
    assert.equal(c, '{"x":7}\n');
  });

  test('doubles beyond 2^53 are inlined exactly', async () => {
    const rows = await store.query<{ v: number }>('SELECT {v:Float64} AS v', { v: 1e21 });
    assert.deepEqual(rows, [{ v: 1e21 }]);
    assert.deepEqual(await store.query('SELECT {v:Float64} AS v', { v: 1.7976931348623157e308 }), [{ v: 1.7976931348623157e308 }]);
  });
});
