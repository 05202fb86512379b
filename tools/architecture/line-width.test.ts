import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { wideLines, widthsWithoutLiterals } from './line-width.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WIDTH = (JSON.parse(readFileSync(`${ROOT}.prettierrc.json`, 'utf8')) as { printWidth: number }).printWidth;

test('no source line is wider than the formatter width, except for a literal that cannot be split', () => {
  assert.equal(WIDTH, 140);
  assert.deepEqual(
    wideLines(ROOT, WIDTH).map((w) => `${w.file}:${w.line} (${w.width})`),
    [],
  );
});

test('the characters of string, template and regex literals do not count; code and comments do', () => {
  const text = [
    "  description: 'a long text, with \\'escapes\\'',",
    '  const sql = `SELECT a,',
    '    b FROM t WHERE x = ${x} AND y`;',
    '  const re = /^(a|b)\\/c[/x]$/u;',
    '  const q = a / b / c; // a comment',
  ].join('\n');
  assert.deepEqual(widthsWithoutLiterals(text), [16, 14, 2, 14, 35]);
});
