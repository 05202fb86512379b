/** VenueSink dead letters: a frame's raw text is kept whole up to DEAD_LETTER_RAW_MAX, an oversized one is cut. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { OVERSIZED_FRAME_BYTES, oversizedFrame } from '#sandbox/servers/host.ts';
import { CapturingPublisher } from '#ingest/pipeline/testing/capturing-publisher.ts';
import { DEAD_LETTER_RAW_MAX, VenueSink } from '#ingest/pipeline/venue-sink.ts';

test('a dead letter keeps a normal frame whole and the first 64 Ki characters of an oversized one, saying so', () => {
  const pub = new CapturingPublisher();
  const sink = new VenueSink('deribit', pub);
  sink.deadLetter('public', 'trades', 'malformed json', '<html>502</html>', 'utf8', 1_000);
  const big = oversizedFrame('<html>502</html>');
  assert.equal(big.length, OVERSIZED_FRAME_BYTES);
  sink.deadLetter('public', 'trades', 'malformed json', big, 'utf8', 2_000);
  const [small, cut] = pub.letters;
  assert.ok(small !== undefined && cut !== undefined);
  assert.equal(small.raw, '<html>502</html>');
  assert.equal(small.reason, 'malformed json');
  assert.equal(cut.raw.length, DEAD_LETTER_RAW_MAX);
  assert.equal(cut.raw, big.slice(0, 65_536));
  assert.equal(cut.reason, 'malformed json [frame of 2097152 characters; the first 65536 kept]');
  // The id is over the whole frame (two oversized frames differing only past the cut are two dead letters).
  assert.equal(cut.id, createHash('sha1').update(`deribit\npublic\n2000\n${big}`).digest('hex'));
});
