/**
 * The typed placeholders of a SQL text (placeholdersOf, placeholderNames, paramsMismatch): their places, names and
 * types; none inside string literals, quoted identifiers or comments; the same answer from the scan's memory.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { paramsMismatch, placeholderNames, placeholdersOf } from './params.ts';

describe('typed placeholders', () => {
  test('each placeholder with its place, name and type (spaces inside the braces allowed)', () => {
    const sql = 'SELECT {a:String}, { b : Array(UInt32) } WHERE t > {a:String}';
    assert.deepEqual(placeholdersOf(sql), [
      { start: 7, end: 17, name: 'a', type: 'String' },
      { start: 19, end: 40, name: 'b', type: 'Array(UInt32)' },
      { start: 51, end: 61, name: 'a', type: 'String' },
    ]);
    assert.equal(sql.slice(19, 40), '{ b : Array(UInt32) }');
    assert.deepEqual([...placeholderNames(sql)], ['a', 'b']);
  });

  test('none inside string literals, quoted identifiers or comments; a map literal is not one', () => {
    const sql =
      "SELECT 'x{s:String}', 'a\\'{s:String}', 'b''{s:String}', `{s:String}`, \"{s:String}\" -- {s:String}\n/* {s:String} */ {'k':1}, {n:UInt8}";
    assert.deepEqual(
      placeholdersOf(sql).map((p) => p.name),
      ['n'],
    );
    assert.equal(paramsMismatch(sql, { n: 1 }), null);
    assert.equal(paramsMismatch(sql, { n: 1, s: 'x' }), 'param(s) s not used as {name:Type} placeholder');
    assert.equal(paramsMismatch(sql, {}), 'no value for placeholder(s) n');
  });

  test('an unterminated literal or comment ends the scan; a lone brace is text', () => {
    assert.deepEqual(placeholdersOf("SELECT '{a:String}"), []);
    assert.deepEqual(placeholdersOf('SELECT 1 /* {a:String}'), []);
    assert.deepEqual(
      placeholdersOf('SELECT { , {a:UInt8}').map((p) => p.name),
      ['a'],
    );
  });

  test('a text scanned again gives the same answer (remembered), and a text differing by one character its own', () => {
    const a = placeholdersOf('SELECT {x:UInt8}');
    assert.equal(placeholdersOf('SELECT {x:UInt8}'), a);
    assert.deepEqual(
      placeholdersOf('SELECT {y:UInt8}').map((p) => p.name),
      ['y'],
    );
  });
});
