import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { splitSqlStatements } from './split-sql.ts';

describe('splitSqlStatements', () => {
  test('splits on ; at line ends and drops blanks', () => {
    assert.deepEqual(splitSqlStatements('CREATE TABLE a (x UInt8) ENGINE=Memory;\n\nSELECT 1;\n;\n  \n'), [
      'CREATE TABLE a (x UInt8) ENGINE=Memory',
      'SELECT 1',
    ]);
  });

  test('keeps ; inside strings, quoted identifiers and escaped quotes', () => {
    const sql = "SELECT 'a;b', 'it''s;', 'back\\';slash', \"col;x\", `t;y` FROM t;\nSELECT 2";
    assert.deepEqual(splitSqlStatements(sql), ["SELECT 'a;b', 'it''s;', 'back\\';slash', \"col;x\", `t;y` FROM t", 'SELECT 2']);
  });

  test('drops comments, including ones containing ; and quotes', () => {
    const sql = "-- header; with 'quote\nSELECT 1 -- trailing; comment\n, 2; /* block; 'x */ SELECT 3;";
    assert.deepEqual(splitSqlStatements(sql), ['SELECT 1 \n, 2', 'SELECT 3']);
  });

  test('a final statement without ; is kept', () => {
    assert.deepEqual(splitSqlStatements('SELECT 1;\nSELECT 2\n'), ['SELECT 1', 'SELECT 2']);
  });

  test('comment-only script yields nothing; unterminated literals are errors', () => {
    assert.deepEqual(splitSqlStatements('-- nothing\n/* here */\n'), []);
    assert.throws(() => splitSqlStatements("SELECT 'oops"), SyntaxError);
    assert.throws(() => splitSqlStatements('SELECT 1 /* oops'), SyntaxError);
  });
});
