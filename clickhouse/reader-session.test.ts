import { test } from 'node:test';
import assert from 'node:assert/strict';
import { calledNames, readerSetup } from './reader-session.ts';

test('a reader session: profile, role, its own limits, readonly, then every other requested setting (the engine refuses those)', () => {
  assert.deepEqual(
    readerSetup('default', [
      ['max_threads', '1'],
      ['max_execution_time', '60'],
      ['readonly', '0'],
      ['session_timezone', "Europe/X'"],
    ]),
    [
      'USE default',
      "SET session_timezone = 'UTC'",
      "SET output_format_json_quote_64bit_integers = '1'",
      "SET output_format_pretty_color = '0'",
      "SET output_format_pretty_row_numbers = '0'",
      'SET ROLE gex_reader',
      "SET max_execution_time = '60'",
      "SET session_timezone = 'Europe/X\\''",
      'SET readonly = 1',
      "SET max_threads = '1'",
      "SET readonly = '0'",
    ],
  );
  assert.throws(() => readerSetup('default', [['max threads', '1']]), /Code: 115\. .*Unknown setting max threads/);
});

test('the names a canonical statement calls: not inside string literals or quoted identifiers, not longer words', () => {
  assert.deepEqual(
    calledNames("SELECT count(), file('/x'), `file(`, 'file(' AS s FROM merge('a', 'b') WHERE x IN (1) AND arrayMap(y -> FILE (y), [''])"),
    ['count', 'file', 'merge', 'IN', 'arrayMap', 'FILE'],
  );
  assert.deepEqual(calledNames("SELECT 1\nINTO OUTFILE 'x'"), []);
  assert.deepEqual(calledNames("SELECT 'it\\'s file(' AS profile, concat('a', 'b')"), ['concat']);
});
