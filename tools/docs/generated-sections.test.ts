import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SETTINGS } from '#platform/settings.ts';
import { GENERATED_SECTIONS, sectionOf, withSection } from './generated-sections.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

test('every generated README section equals what the code declares (npm run docs rewrites them)', () => {
  for (const s of GENERATED_SECTIONS) {
    const text = readFileSync(`${ROOT}${s.file}`, 'utf8');
    assert.equal(sectionOf(text, s.name), s.render(), `${s.file} section ${s.name} is stale: run npm run docs`);
  }
});

test('the README settings table has one row per setting, with its flag, variable and default', () => {
  const table = GENERATED_SECTIONS.find((s) => s.name === 'settings')?.render() ?? '';
  const rows = table.split('\n').slice(2);
  assert.equal(rows.length, Object.keys(SETTINGS).length);
  assert.ok(rows.includes(`| \`--port\` | \`PORT\` | \`8080\` | ${SETTINGS.port.description} |`));
  assert.ok(rows.some((r) => r.startsWith('| `--kafka-brokers` | `KAFKA_BROKERS` | unset |')));
  assert.ok(rows.some((r) => r.startsWith('| `--clickhouse-password` | `CLICKHOUSE_PASSWORD` | empty |')));
});

test('a section is read and replaced between its markers; a missing marker is an error', () => {
  const text = 'a\n<!-- x:begin -->\nold\n<!-- x:end -->\nb\n';
  assert.equal(sectionOf(text, 'x'), 'old');
  assert.equal(withSection(text, 'x', 'new\nrows'), 'a\n<!-- x:begin -->\nnew\nrows\n<!-- x:end -->\nb\n');
  assert.equal(sectionOf(text, 'y'), null);
  assert.throws(() => withSection(text, 'y', ''), /no <!-- y:begin -->/);
});
