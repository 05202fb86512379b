import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clockTime, prettyLabelLine, prettyLogLine } from './log-pretty.ts';

process.env.TZ = 'UTC'; // the clock column is local time: pin it for the vectors

const plain = { color: false };

test('a pino line: time of day, padded level, component, message, the other fields as key=value', () => {
  const json =
    '{"level":40,"time":"2026-11-26T16:33:07.412Z","pid":21814,"component":"clickhouse.migrate","migration":"001_raw_tables","statements":9,"msg":"applying migration"}\n';
  assert.equal(
    prettyLogLine(json, plain),
    '16:33:07.412 WARN   clickhouse.migrate: applying migration migration=001_raw_tables statements=9\n',
  );
});

test('values with spaces, quotes or = are JSON; objects are JSON; no component, no prefix', () => {
  const json = JSON.stringify({
    level: 30,
    time: '2026-01-02T03:04:05.006Z',
    msg: 'api listening',
    url: 'http://127.0.0.1:8080',
    note: 'two words',
    eq: 'a=b',
    flag: true,
    none: null,
    list: [1, 'x'],
  });
  assert.equal(
    prettyLogLine(json, plain),
    '03:04:05.006 INFO   api listening url=http://127.0.0.1:8080 note="two words" eq="a=b" flag=true none=null list=[1,"x"]\n',
  );
});

test('an error: its stack on the lines below, indented', () => {
  const json = JSON.stringify({
    level: 50,
    time: '2026-01-02T03:04:05.006Z',
    component: 'bus',
    topic: 't',
    err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at f (x.ts:1:2)' },
    msg: 'lag collection failed',
  });
  assert.equal(
    prettyLogLine(json, plain),
    '03:04:05.006 ERROR  bus: lag collection failed topic=t\n    Error: boom\n        at f (x.ts:1:2)\n',
  );
});

test('every pino level has its label; an unknown level shows its number', () => {
  const line = (level: number): string => prettyLogLine(JSON.stringify({ level, time: 0, msg: 'm' }), plain);
  assert.deepEqual(
    [10, 20, 30, 40, 50, 60, 35].map(line),
    ['TRACE ', 'DEBUG ', 'INFO  ', 'WARN  ', 'ERROR ', 'FATAL ', '35    '].map((l) => `00:00:00.000 ${l} m\n`),
  );
});

test('an err without a stack (a reason string) is a plain field', () => {
  const json = JSON.stringify({ level: 40, time: 0, component: 'rest', venue: 'okx', err: 'network: fetch failed', msg: 'retrying' });
  assert.equal(prettyLogLine(json, plain), '00:00:00.000 WARN   rest: retrying venue=okx err="network: fetch failed"\n');
});

test('a line that is not a JSON object is passed through', () => {
  assert.equal(prettyLogLine('not json', plain), 'not json\n');
  assert.equal(prettyLogLine('[1,2]\n', plain), '[1,2]\n');
});

test('colours: dim time and keys, coloured label and component', () => {
  const json = JSON.stringify({ level: 30, time: '2026-01-02T03:04:05.006Z', component: 'api', msg: 'hi', port: 1 });
  assert.equal(
    prettyLogLine(json, { color: true }),
    '\u001b[2m03:04:05.006\u001b[0m \u001b[32mINFO  \u001b[0m \u001b[36mapi\u001b[0m: hi \u001b[2mport=\u001b[0m1\n',
  );
});

test('label lines share the columns; the clock pads every field', () => {
  assert.equal(clockTime(new Date('2026-01-02T09:05:03.042Z')), '09:05:03.042');
  assert.equal(prettyLabelLine(new Date('2026-01-02T09:05:03.042Z'), 'STATUS', '1;34', 'x', plain), '09:05:03.042 STATUS x\n');
});
