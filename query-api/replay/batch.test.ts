/**
 * Replay batches (batch.ts): documents numbered per channel across runs and batches, cut at the size bound, each
 * message's bytes found by its end offset (non-ASCII text included), the documents those of lines.ts (for `ws` each
 * one WebSocket frame), data already encoded written as its text would be.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { replayBatches, startOf, type ReplayBatch } from './batch.ts';
import type { ReplayData } from './data.ts';
import { messageLine, replayNotification } from './lines.ts';
import type { MergedRun } from './merge.ts';
import { framePayloads } from '../ws/frames.ts';

async function* runsOf<T>(runs: MergedRun<T>[]): AsyncGenerator<MergedRun<T>> {
  yield* runs;
}

const CHANNELS = ['tape.BTCUSDT', 'levels.BTCUSDT.deribit,okx'];
const RUNS: MergedRun<string>[] = [
  {
    channel: 'tape.BTCUSDT',
    items: [
      { atMs: 1_000, value: '{"a":"é"}' },
      { atMs: 1_000, value: '{"b":2}' },
    ],
  },
  { channel: 'levels.BTCUSDT.deribit,okx', items: [{ atMs: 2_000, value: '{"l":"€𝄞"}' }] },
  { channel: 'tape.BTCUSDT', items: [{ atMs: 3_000, value: '{"c":3}' }] },
];
const EXPECTED: [string, number, number, string][] = [
  ['tape.BTCUSDT', 1_000, 1, '{"a":"é"}'],
  ['tape.BTCUSDT', 1_000, 2, '{"b":2}'],
  ['levels.BTCUSDT.deribit,okx', 2_000, 1, '{"l":"€𝄞"}'],
  ['tape.BTCUSDT', 3_000, 3, '{"c":3}'],
];

/** Each message of the batches; `framed`: a message is a WebSocket frame, its text the frame's payload. */
function messagesOf(batches: ReplayBatch[], framed: boolean): { channel: number; atMs: number; seq: number; text: string }[] {
  return batches.flatMap((b) =>
    Array.from({ length: b.count }, (_, i) => {
      const bytes = Buffer.from(b.text, 'latin1').subarray(startOf(b, i), b.ends[i]);
      const payloads = framed ? framePayloads(bytes) : [bytes];
      assert.equal(payloads.length, 1, 'one frame a message');
      return {
        channel: b.channel[i] as number,
        atMs: b.atMs[i] as number,
        seq: b.seq[i] as number,
        text: Buffer.from(payloads[0] as Uint8Array).toString('utf8'),
      };
    }),
  );
}

test('batches: documents of lines.ts, numbered per channel, sliced by their end offsets', async () => {
  for (const [format, doc] of [
    ['ndjson', messageLine],
    ['ws', replayNotification],
  ] as const) {
    for (const maxBytes of [1, 100, 1 << 20]) {
      const batches: ReplayBatch[] = [];
      for await (const b of replayBatches(runsOf(RUNS), CHANNELS, format, maxBytes)) batches.push(b);
      if (maxBytes === 1) assert.equal(batches.length, 4, 'one message a batch');
      if (maxBytes === 1 << 20) assert.equal(batches.length, 1);
      assert.deepEqual(
        messagesOf(batches, format === 'ws'),
        EXPECTED.map(([channel, atMs, seq, data]) => ({
          channel: CHANNELS.indexOf(channel),
          atMs,
          seq,
          text: doc(channel, atMs, seq, data),
        })),
        `${format}, ${maxBytes}`,
      );
      for (const b of batches) {
        assert.equal(b.ends[b.count - 1], b.text.length);
        const codes = Array.from(b.text, (c) => c.charCodeAt(0));
        assert.ok(
          codes.every((c) => c <= 0xff),
          'one character a byte',
        );
        assert.equal(
          b.ascii,
          codes.every((c) => c < 0x80),
          'ascii says whether every byte is',
        );
      }
      assert.deepEqual(
        batches.map((b) => b.ascii),
        format === 'ws'
          ? batches.map(() => false)
          : { 1: [false, true, false, true], 100: [false, false, true], [1 << 20]: [false] }[maxBytes],
        'an NDJSON batch of ASCII lines is ASCII, one with any other character is not; frames never are (header 0x81)',
      );
    }
  }
});

test('batches: a run of a channel not in the request is an error', async () => {
  const runs = runsOf([{ channel: 'chain.BTCUSDT', items: [{ atMs: 1, value: '{}' }] }]);
  await assert.rejects(
    (async () => {
      for await (const b of replayBatches(runs, CHANNELS, 'ndjson')) void b;
    })(),
    /not in the request/,
  );
});

test('batches: a document larger than the batch buffer (a large chain snapshot) is written whole, and the next after it', async () => {
  const big = `{"big":"${'€'.repeat(70_000)}${'x'.repeat(100_000)}"}`;
  const runs: MergedRun<string>[] = [
    {
      channel: 'tape.BTCUSDT',
      items: [
        { atMs: 1, value: '{"a":1}' },
        { atMs: 2, value: big },
      ],
    },
    { channel: 'tape.BTCUSDT', items: [{ atMs: 3, value: '{"c":3}' }] },
  ];
  for (const [format, doc] of [
    ['ndjson', messageLine],
    ['ws', replayNotification],
  ] as const) {
    const expected = [doc('tape.BTCUSDT', 1, 1, '{"a":1}'), doc('tape.BTCUSDT', 2, 2, big), doc('tape.BTCUSDT', 3, 3, '{"c":3}')];
    const batches: ReplayBatch[] = [];
    for await (const b of replayBatches(runsOf(runs), CHANNELS, format, 1 << 20)) batches.push(b);
    assert.equal(batches.length, 1);
    assert.deepEqual(
      messagesOf(batches, format === 'ws').map((m) => m.text),
      expected,
      format,
    );
    const after: ReplayBatch[] = [];
    for await (const b of replayBatches(runsOf(runs), CHANNELS, format, 1)) after.push(b);
    assert.deepEqual(
      messagesOf(after, format === 'ws').map((m) => m.text.length),
      expected.map((d) => d.length),
      `${format}: one message a batch, the buffer grown then shrunk`,
    );
  }
});

/** The runs with each data encoded (as the tape source hands it: bytes of a shared buffer, its ASCII flag). */
function encoded(runs: MergedRun<string>[]): MergedRun<ReplayData>[] {
  return runs.map((r) => ({
    channel: r.channel,
    items: r.items.map((m) => {
      const bytes = Buffer.from(`pad${m.value}pad`, 'utf8');
      return {
        atMs: m.atMs,
        value: { bytes, start: 3, end: bytes.length - 3, ascii: Buffer.byteLength(m.value, 'utf8') === m.value.length },
      };
    }),
  }));
}

test('batches: data already encoded gives the same batches, byte for byte, as the same data as text', async () => {
  const big = `{"big":"${'€'.repeat(30_000)}"}`;
  const runs: MergedRun<string>[] = [
    ...RUNS,
    // Instants before 1970 and past year 9999 (not 24 characters), a frame of 64 KiB or more (a 10-byte header).
    {
      channel: 'tape.BTCUSDT',
      items: [
        { atMs: -1, value: '{"d":4}' },
        { atMs: 253_402_300_800_000, value: '{"e":5}' },
      ],
    },
    { channel: 'levels.BTCUSDT.deribit,okx', items: [{ atMs: 253_402_300_800_000, value: big }] },
  ];
  const mixed = encoded(runs).map((r, k) => (k % 2 === 0 ? r : (runs[k] as MergedRun<string>)));
  for (const format of ['ndjson', 'ws'] as const) {
    for (const maxBytes of [1, 100, 1 << 20]) {
      const expected: ReplayBatch[] = [];
      for await (const b of replayBatches(runsOf(runs), CHANNELS, format, maxBytes)) expected.push(b);
      for (const [name, input] of [
        ['encoded', encoded(runs)],
        ['mixed', mixed],
      ] as const) {
        const batches: ReplayBatch[] = [];
        for await (const b of replayBatches(runsOf(input), CHANNELS, format, maxBytes)) batches.push(b);
        assert.deepEqual(batches, expected, `${name}, ${format}, ${maxBytes}`);
      }
    }
  }
});
