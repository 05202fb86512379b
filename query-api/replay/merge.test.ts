import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeReplay, type ReplayItem, type ReplaySource } from './merge.ts';
import { doneLine, messageLine } from './lines.ts';
import { parseReplayRequest, replayInstant } from './request.ts';

/** A source over fixed items in chunks of `size` that records how many chunks were pulled and whether it was closed. */
function source(channel: string, items: readonly [number, string][], size = 1) {
  const state = { pulled: 0, closed: false };
  async function* gen(): AsyncGenerator<ReplayItem<string>[]> {
    try {
      for (let i = 0; i < items.length; i += size) {
        state.pulled++;
        yield items.slice(i, i + size).map(([atMs, value]) => ({ atMs, value }));
      }
    } finally {
      state.closed = true;
    }
  }
  const s: ReplaySource<string> = { channel, chunks: gen() };
  return { s, state };
}

async function collect(sources: ReplaySource<string>[]): Promise<string[]> {
  const out: string[] = [];
  for await (const run of mergeReplay(sources)) for (const m of run.items) out.push(`${m.atMs}:${run.channel}:${m.value}`);
  return out;
}

test('merge: time order across channels; ties by channel name, then the channel own order', async () => {
  const tape = source('tape.BTCUSDT', [
    [10, 't1'],
    [20, 't2'],
    [20, 't3'],
    [35, 't4'],
  ]);
  const levels = source('levels.BTCUSDT', [
    [20, 'l1'],
    [30, 'l2'],
  ]);
  const chain = source('chain.BTCUSDT', [[20, 'c1']]);
  assert.deepEqual(await collect([tape.s, levels.s, chain.s]), [
    '10:tape.BTCUSDT:t1',
    '20:chain.BTCUSDT:c1',
    '20:levels.BTCUSDT:l1',
    '20:tape.BTCUSDT:t2',
    '20:tape.BTCUSDT:t3',
    '30:levels.BTCUSDT:l2',
    '35:tape.BTCUSDT:t4',
  ]);
});

test('merge: chunks are cut into runs where another channel goes first; a lone channel keeps its chunks', async () => {
  const tapeItems: [number, string][] = [
    [10, 't1'],
    [20, 't2'],
    [20, 't3'],
    [35, 't4'],
    [36, 't5'],
  ];
  const levelsItems: [number, string][] = [
    [20, 'l1'],
    [30, 'l2'],
  ];
  for (const size of [1, 2, 3, 5]) {
    const runs: string[] = [];
    for await (const run of mergeReplay([source('tape.BTCUSDT', tapeItems, size).s, source('levels.BTCUSDT', levelsItems, size).s]))
      runs.push(`${run.channel[0]}:${run.items.map((i) => i.value).join(',')}`);
    assert.deepEqual(
      runs.flatMap((r) => r.slice(2).split(',')),
      ['t1', 'l1', 't2', 't3', 'l2', 't4', 't5'],
      `chunks of ${size}`,
    );
    if (size === 5) assert.deepEqual(runs, ['t:t1', 'l:l1', 't:t2,t3', 'l:l2', 't:t4,t5']);
  }
  const chunks: ReplayItem<string>[][] = [
    [{ atMs: 1, value: 'a' }],
    [
      { atMs: 2, value: 'b' },
      { atMs: 2, value: 'c' },
    ],
  ];
  const handed: (readonly ReplayItem<string>[])[] = [];
  for await (const run of mergeReplay([
    {
      channel: 'tape.BTCUSDT',
      chunks: (async function* () {
        yield* chunks;
      })(),
    },
  ]))
    handed.push(run.items);
  assert.equal(handed[0], chunks[0]);
  assert.equal(handed[1], chunks[1]);
});

test('merge: the order of the sources does not change the stream', async () => {
  const a = () =>
    source('levels.ETHUSDT', [
      [5, 'a'],
      [7, 'b'],
    ]).s;
  const b = () =>
    source('levels.BTCUSDT', [
      [5, 'x'],
      [6, 'y'],
    ]).s;
  const expected = ['5:levels.BTCUSDT:x', '5:levels.ETHUSDT:a', '6:levels.BTCUSDT:y', '7:levels.ETHUSDT:b'];
  assert.deepEqual(await collect([a(), b()]), expected);
  assert.deepEqual(await collect([b(), a()]), expected);
});

test('merge: empty channels and no channels', async () => {
  assert.deepEqual(await collect([]), []);
  assert.deepEqual(await collect([source('tape.BTCUSDT', []).s, source('levels.BTCUSDT', []).s]), []);
  assert.deepEqual(await collect([source('tape.BTCUSDT', []).s, source('levels.BTCUSDT', [[1, 'l']]).s]), ['1:levels.BTCUSDT:l']);
});

test('merge: pulls one chunk ahead per channel and closes every source on early return', async () => {
  const tape = source(
    'tape.BTCUSDT',
    Array.from({ length: 100 }, (_, i): [number, string] => [i, `t${i}`]),
  );
  const levels = source('levels.BTCUSDT', [[1000, 'l']]);
  const it = mergeReplay([tape.s, levels.s]);
  for (let i = 0; i < 3; i++) await it.next();
  // three runs of one item yielded: tape pulled exactly three chunks (nothing read ahead of the consumer), levels only
  // its first (held)
  assert.equal(tape.state.pulled, 3);
  assert.equal(levels.state.pulled, 1);
  await it.return(undefined);
  assert.deepEqual([tape.state.closed, levels.state.closed], [true, true]);
});

test('merge: a channel going back in time and duplicate names are errors', async () => {
  await assert.rejects(
    collect([
      source('tape.BTCUSDT', [
        [5, 'a'],
        [4, 'b'],
      ]).s,
    ]),
    /went back in time/,
  );
  const inChunk = source(
    'tape.BTCUSDT',
    [
      [5, 'a'],
      [6, 'b'],
      [4, 'c'],
    ],
    3,
  );
  await assert.rejects(collect([inChunk.s]), /went back in time/);
  await assert.rejects(collect([source('tape.BTCUSDT', []).s, source('tape.BTCUSDT', []).s]), /duplicate/);
});

test('lines: message and done lines are one JSON document each, newline-terminated', () => {
  const m = messageLine('levels.BTCUSDT.deribit,okx', Date.UTC(2026, 9, 1, 12), 3, '{"a":1}');
  assert.equal(m, '{"channel":"levels.BTCUSDT.deribit,okx","at":"2026-10-01T12:00:00.000Z","seq":3,"data":{"a":1}}\n');
  const d = doneLine(
    0,
    1000,
    new Map([
      ['tape.BTCUSDT', 2],
      ['levels.BTCUSDT', 0],
    ]),
  );
  assert.equal(
    d,
    '{"type":"replay_done","from":"1970-01-01T00:00:00.000Z","to":"1970-01-01T00:00:01.000Z","counts":{"tape.BTCUSDT":2,"levels.BTCUSDT":0}}\n',
  );
});

test('request: channels (venue lists inside names), instants as ISO or ms, problems listed', () => {
  const now = Date.UTC(2026, 9, 2);
  const r = parseReplayRequest(
    { channels: 'levels.BTCUSDT.okx,deribit,tape.BTCUSDT,chain.ETHUSDT,tape.BTCUSDT', from: '2026-10-01T00:00:00Z', to: String(now) },
    now,
  );
  assert.ok(r.ok);
  assert.deepEqual(
    r.request.channels.map((c) => c.name),
    ['levels.BTCUSDT.deribit,okx', 'tape.BTCUSDT', 'chain.ETHUSDT'],
  );
  assert.deepEqual([r.request.fromMs, r.request.toMs], [Date.UTC(2026, 9, 1), now]);
  assert.equal(replayInstant('2026-10-01T00:00:00+02:00'), Date.UTC(2026, 8, 30, 22));
  assert.equal(replayInstant('yesterday'), null);
  assert.equal(replayInstant('2026-10-01'), null);

  const bad = parseReplayRequest({ channels: 'tape.DOGEUSDT,book.BTCUSDT,levels.BTCUSDT', from: 'x', to: '2026-10-03T00:00:00Z' }, now);
  assert.ok(!bad.ok);
  assert.deepEqual(
    bad.problems.map((p) => [p.name, p.received]),
    [
      ['channels', 'tape.DOGEUSDT,book.BTCUSDT'],
      ['from', 'x'],
      ['to', '2026-10-03T00:00:00Z'],
    ],
  );
  const order = parseReplayRequest({ channels: 'tape.BTCUSDT', from: '2000', to: '1000' }, now);
  assert.ok(!order.ok);
  assert.deepEqual(
    order.problems.map((p) => p.message),
    ['must be before `to`'],
  );
  const equal = parseReplayRequest({ channels: 'tape.BTCUSDT', from: '1000', to: '1000' }, now);
  assert.ok(!equal.ok);
  const many = ['BTCUSDT', 'ETHUSDT'].flatMap((s) =>
    ['tape', 'levels', 'chain', 'levels', 'chain'].map((k, i) => (i > 2 ? `${k}.${s}.okx` : `${k}.${s}`)),
  );
  const tooMany = parseReplayRequest({ channels: many.join(','), from: '0', to: '1000' }, now);
  assert.ok(!tooMany.ok);
  assert.deepEqual(
    tooMany.problems.map((p) => [p.name, p.message]),
    [['channels', 'at most 8 channels']],
  );
  const none = parseReplayRequest({ channels: ' ', from: '0', to: '1000' }, now);
  assert.ok(!none.ok);
  assert.deepEqual(
    none.problems.map((p) => p.message),
    ['at least one channel'],
  );
});
