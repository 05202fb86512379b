import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixtureLine, fixtureText } from '../venues/fixtures/load.ts';
import { parseFrames } from './parse-cli.ts';

test('parseFrames: listing line seeds the registry, frames become JSON lines, dead letters go to stderr', async () => {
  const out: string[] = [];
  const err: string[] = [];
  const lines = [
    fixtureText('okx/instruments_option.json').trim(),
    fixtureLine('okx/docs.jsonl', 'option-trades'),
    '{"event":"subscribe","arg":{"channel":"trades","instId":"BTC-USDT"}}',
    '{"arg":{"channel":"trades"',
    '',
  ];
  const summary = await parseFrames(
    'okx',
    lines,
    (l) => out.push(l),
    (l) => err.push(l),
    { now: () => 1 },
  );
  assert.deepEqual(summary, { frames: 4, events: 6, ignored: 1, deadLetters: 1 });
  assert.equal(out.length, 6);
  const last = JSON.parse(out[5] ?? '') as { type: string; event: { size: number } };
  assert.equal(last.type, 'option_trade');
  assert.equal(last.event.size, 0.02); // 2 contracts × ctMult 0.01 × ctVal 1
  assert.deepEqual(err, ['line 4: malformed json']);
});

test('parseFrames: unknown venue throws (the CLI reports it)', async () => {
  await assert.rejects(
    parseFrames(
      'nope',
      [],
      () => {},
      () => {},
    ),
    /no connector/,
  );
});
