import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultLogLevel, resolveLogFormat } from './log-format.ts';

test('auto (or unset, or unknown): readable on a terminal, JSON otherwise; json and pretty win over the terminal', () => {
  const cases: [string | undefined, boolean, string][] = [
    [undefined, true, 'pretty'],
    [undefined, false, 'json'],
    ['auto', true, 'pretty'],
    ['auto', false, 'json'],
    ['json', true, 'json'],
    ['json', false, 'json'],
    ['pretty', false, 'pretty'],
    ['pretty', true, 'pretty'],
    ['bogus', false, 'json'],
  ];
  for (const [setting, tty, want] of cases) assert.equal(resolveLogFormat(setting, tty), want, `${setting} tty=${tty}`);
});

test('unset LOG_LEVEL: info for JSON, warn for a terminal', () => {
  assert.equal(defaultLogLevel('json'), 'info');
  assert.equal(defaultLogLevel('pretty'), 'warn');
});
