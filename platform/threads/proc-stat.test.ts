import { test } from 'node:test';
import assert from 'node:assert/strict';
import { STAT_FIELD, statFields, taskNice, taskStat } from './proc-stat.ts';

test('the fields are read after the last parenthesis: a name with spaces and parentheses does not shift them', () => {
  // A Node 20 platform worker's line (recorded on this machine), and the same line with an awkward thread name.
  const line = '22675 (node) S 22673 22673 1 0 -1 4194368 12 0 0 0 3 1 0 0 39 19 11 0 5818790 1100001280 11000 18446744073709551615';
  const odd = line.replace('(node)', '(a) b (c)');
  for (const l of [line, odd]) {
    const f = statFields(l);
    assert.equal(f[STAT_FIELD.state], 'S');
    assert.equal(f[STAT_FIELD.ppid], '22673');
    assert.equal(f[STAT_FIELD.utime], '3');
    assert.equal(f[STAT_FIELD.stime], '1');
    assert.equal(f[STAT_FIELD.nice], '19');
    assert.equal(f[STAT_FIELD.starttime], '5818790');
  }
});

test(
  "on Linux: this process's main thread has a stat line and a niceness; a task that does not exist has none",
  { skip: process.platform !== 'linux' ? 'Linux only (/proc)' : false },
  () => {
    assert.equal(taskStat(process.pid)?.[STAT_FIELD.state] !== undefined, true);
    assert.equal(Number.isInteger(taskNice(process.pid)), true);
    assert.equal(taskStat(2 ** 30), null);
    assert.ok(Number.isNaN(taskNice(2 ** 30)));
  },
);
