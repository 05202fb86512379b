/**
 * Replay messages rendered in batches: a batch is the documents (lines.ts) of up to BATCH_MESSAGES consecutive
 * messages (or about BATCH_BYTES of them) encoded once (NDJSON lines, or WebSocket frames of the notifications), with
 * each message's end offset, instant, channel and sequence number beside it in typed arrays. A transport then writes a
 * batch at once, or a slice a message when it paces them, without rendering anything itself. Pure: no I/O of its own.
 *
 * The encoded bytes travel as a string of one character a byte (`text`, latin1), not as a buffer: a batch made on the
 * replay thread crosses to the event loop, and a string arrives there as an object of its heap, collected by the
 * young generation's cheap scavenges once written, while every ArrayBuffer that arrives counts as the receiving
 * heap's external memory, which V8 answers with full mark-compacts of the event loop's heap (pauses of 10-16 ms under
 * 20 replays, against ~0.5 ms a scavenge; bench/RESULTS.md "replay"). A socket written with encoding `latin1` sends
 * exactly those bytes, copied out of the string.
 */
import { digitCount, isoLength, JsonBytes } from '#platform/json-bytes.ts';
import type { EncodedData, ReplayData } from './data.ts';
import { DATA_PART, documentPartsOf, documentsOf, SEQ_PART, type DocumentFormat, type DocumentParts } from './lines.ts';
import type { MergedRun } from './merge.ts';
import { headerLength, writeTextFrameHeader } from '../ws/frames.ts';

/** `ndjson`: each message its line (GET /v2/replay); `ws`: each its `replay` notification (public/replay). */
export type ReplayFormat = DocumentFormat;

export interface ReplayBatch {
  readonly count: number;
  /**
   * The messages' bytes one after the other, one character a byte (write it with encoding `latin1`): `ndjson` each
   * its line, UTF-8; `ws` each its notification as a complete WebSocket text frame (ws/frames.ts), ready for the socket.
   */
  readonly text: string;
  /** Every byte is ASCII: `text` is then its own UTF-8 as well (written in either encoding, the same bytes). */
  readonly ascii: boolean;
  /** End of each message in `text` (the first starts at 0, each next where the previous ends). */
  readonly ends: Uint32Array;
  /** The instant each message represents, ms UTC. */
  readonly atMs: Float64Array;
  /** Each message's channel: its index in the request's channels. */
  readonly channel: Uint8Array;
  /** Each message's sequence number in its channel (1, 2, ...). */
  readonly seq: Uint32Array;
}

/** A batch ends once it holds this many bytes (a socket write's worth), or BATCH_MESSAGES messages. */
export const BATCH_BYTES = 64 * 1024;
export const BATCH_MESSAGES = 4_096;

/** Start offset of message `i` of a batch. */
export const startOf = (b: ReplayBatch, i: number): number => (i === 0 ? 0 : (b.ends[i - 1] as number));

/**
 * A batch under construction: each document is written into one reused buffer as it is added (UTF-8, for `framed`
 * after its WebSocket frame header), and the batch's text is one copy out of it: no document is held to the end of
 * the batch, and no pass joins, re-measures or frames the batch then (the tape replay of 1 M trades after a month's
 * levels replay: 101-125k trades/s, against 60-73k with those passes; bench/RESULTS.md "replay"). Data already
 * encoded (the tape's) is copied in between its document's parts, with no document string made.
 */
class BatchBuilder {
  private readonly out = new JsonBytes(2 * BATCH_BYTES);
  private atMs = new Float64Array(BATCH_MESSAGES);
  private channel = new Uint8Array(BATCH_MESSAGES);
  private seq = new Uint32Array(BATCH_MESSAGES);
  private ends = new Uint32Array(BATCH_MESSAGES);
  count = 0;

  constructor(private readonly framed: boolean) {}

  get bytes(): number {
    return this.out.pos;
  }

  /** A document made as text. */
  add(doc: string, atMs: number, channel: number, seq: number): void {
    const { out } = this;
    if (this.framed) {
      const size = Buffer.byteLength(doc, 'utf8');
      out.ensure(headerLength(size));
      out.pos = writeTextFrameHeader(out.buf, out.pos, size);
    }
    out.utf8(doc);
    this.added(atMs, channel, seq);
  }

  /** The document of encoded data: `parts` and the variable fields written around a copy of the data's bytes. */
  addEncoded(parts: DocumentParts, data: EncodedData, atMs: number, channel: number, seq: number): void {
    const { out } = this;
    if (this.framed) {
      const size =
        parts.head.length +
        isoLength(atMs) +
        SEQ_PART.length +
        digitCount(seq) +
        DATA_PART.length +
        data.end -
        data.start +
        parts.tail.length;
      out.ensure(headerLength(size));
      out.pos = writeTextFrameHeader(out.buf, out.pos, size);
    }
    out.raw(parts.head);
    out.iso(atMs);
    out.raw(SEQ_PART);
    out.uint(seq);
    out.raw(DATA_PART);
    out.raw(data.bytes, data.start, data.end);
    out.raw(parts.tail);
    if (!data.ascii) out.allAscii = false;
    this.added(atMs, channel, seq);
  }

  private added(atMs: number, channel: number, seq: number): void {
    const i = this.count++;
    this.ends[i] = this.out.pos;
    this.atMs[i] = atMs;
    this.channel[i] = channel;
    this.seq[i] = seq;
  }

  /** The batch of what was added; the builder starts empty again. */
  take(): ReplayBatch {
    const { count, out } = this;
    const batch = {
      count,
      text: out.buf.toString('latin1', 0, out.pos),
      // A frame's header byte 0x81 is not ASCII.
      ascii: out.allAscii && !this.framed,
      ends: this.ends.slice(0, count),
      atMs: this.atMs.slice(0, count),
      channel: this.channel.slice(0, count),
      seq: this.seq.slice(0, count),
    };
    // A batch grown past its usual size (a large document) does not keep the larger buffer.
    if (out.buf.length > 2 * BATCH_BYTES) out.buf = Buffer.allocUnsafe(2 * BATCH_BYTES);
    this.count = 0;
    out.reset();
    return batch;
  }
}

/**
 * The documents of the merged runs in batches, numbered per channel; `channels` are the request's channel names (a
 * message's channel index is its name's).
 */
export async function* replayBatches(
  runs: AsyncIterable<MergedRun<ReplayData>>,
  channels: readonly string[],
  format: ReplayFormat,
  maxBytes = BATCH_BYTES,
): AsyncGenerator<ReplayBatch> {
  const render = channels.map((c) => documentsOf(c, format));
  const parts = channels.map((c) => documentPartsOf(c, format));
  const indexOf = new Map(channels.map((c, i) => [c, i]));
  const seqs = channels.map(() => 0);
  const b = new BatchBuilder(format === 'ws');
  for await (const run of runs) {
    const ch = indexOf.get(run.channel);
    if (ch === undefined) throw new Error(`replay batch: channel ${run.channel} not in the request`);
    const doc = render[ch] as (at: string, seq: number, dataJson: string) => string;
    const docParts = parts[ch] as DocumentParts;
    let seq = seqs[ch] as number;
    // Every item of the run is copied into the batch before the next run is pulled (data.ts EncodedData).
    for (const m of run.items) {
      const data = m.value;
      if (typeof data === 'string') b.add(doc(new Date(m.atMs).toISOString(), ++seq, data), m.atMs, ch, seq);
      else b.addEncoded(docParts, data, m.atMs, ch, ++seq);
      if (b.bytes >= maxBytes || b.count >= BATCH_MESSAGES) yield b.take();
    }
    seqs[ch] = seq;
  }
  if (b.count > 0) yield b.take();
}
