/**
 * Text frames as the replay batches carry them: the header's three length forms at their bounds (RFC 6455 5.2), and
 * framePayloads reading consecutive frames back. (A real `ws` client reads them in replay/ws-replay.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { framePayloads, headerLength, textFrameHeader, writeTextFrameHeader } from './frames.ts';

const frame = (payload: Uint8Array): Uint8Array => {
  const out = new Uint8Array(headerLength(payload.length) + payload.length);
  out.set(payload, writeTextFrameHeader(out, 0, payload.length));
  return out;
};

test('frames: header forms at their bounds', () => {
  assert.deepEqual([...textFrameHeader(0)], [0x81, 0]);
  assert.deepEqual([...textFrameHeader(125)], [0x81, 125]);
  assert.deepEqual([...textFrameHeader(126)], [0x81, 126, 0, 126]);
  assert.deepEqual([...textFrameHeader(65_535)], [0x81, 126, 0xff, 0xff]);
  assert.deepEqual([...textFrameHeader(65_536)], [0x81, 127, 0, 0, 0, 0, 0, 1, 0, 0]);
  for (const n of [0, 125, 126, 65_535, 65_536]) assert.equal(headerLength(n), textFrameHeader(n).length);
});

test('frames: consecutive frames read back by framePayloads', () => {
  const texts = ['', 'a', 'é€𝄞', 'x'.repeat(125), 'y'.repeat(126), 'z'.repeat(65_535), 'w'.repeat(70_000)];
  const payloads = texts.map((t) => Buffer.from(t, 'utf8'));
  const all = Buffer.concat(payloads.map(frame));
  assert.deepEqual(
    framePayloads(all).map((p) => Buffer.from(p).toString('utf8')),
    texts,
  );
  assert.throws(() => framePayloads(all.subarray(0, all.length - 1)), /runs past the end/);
  assert.throws(() => framePayloads(Buffer.from([0x82, 0])), /not an unmasked final text frame/);
});
