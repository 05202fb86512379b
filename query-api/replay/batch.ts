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
import { documentsOf, type DocumentFormat } from './lines.ts';
import type { MergedRun } from './merge.ts';
import type { ReplayData } from './sources.ts';
import { headerLength, textFrameHeader, writeTextFrameHeader } from '../ws/frames.ts';

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

/** A batch ends once it holds this many characters of documents (a socket write's worth), or BATCH_MESSAGES. */
export const BATCH_BYTES = 64 * 1024;
export const BATCH_MESSAGES = 4_096;

const utf8 = new TextEncoder();

/** Start offset of message `i` of a batch. */
export const startOf = (b: ReplayBatch, i: number): number => (i === 0 ? 0 : (b.ends[i - 1] as number));

/** The ASCII documents `docs` as consecutive WebSocket text frames, one character a byte; `ends` become the frames' ends. */
function frameAllText(docs: readonly string[], ends: Uint32Array): string {
  const parts = new Array<string>(2 * docs.length);
  let at = 0;
  for (let i = 0; i < docs.length; i++) {
    const doc = docs[i] as string;
    const header = textFrameHeader(doc.length);
    parts[2 * i] = String.fromCharCode(...header);
    parts[2 * i + 1] = doc;
    at += header.length + doc.length;
    ends[i] = at;
  }
  return parts.join('');
}

/** The documents of `encoded` (ending at `ends`) as consecutive WebSocket text frames; `ends` become the frames' ends. */
function frameAll(encoded: Uint8Array, ends: Uint32Array): Uint8Array {
  let total = encoded.length;
  for (let i = 0, start = 0; i < ends.length; start = ends[i] as number, i++) total += headerLength((ends[i] as number) - start);
  const out = new Uint8Array(total);
  let at = 0;
  for (let i = 0, start = 0; i < ends.length; i++) {
    const end = ends[i] as number;
    at = writeTextFrameHeader(out, at, end - start);
    out.set(encoded.subarray(start, end), at);
    at += end - start;
    ends[i] = at;
    start = end;
  }
  return out;
}

/** A batch under construction. */
class BatchBuilder {
  private docs: string[] = [];
  private atMs = new Float64Array(BATCH_MESSAGES);
  private channel = new Uint8Array(BATCH_MESSAGES);
  private seq = new Uint32Array(BATCH_MESSAGES);
  chars = 0;

  get count(): number {
    return this.docs.length;
  }

  add(doc: string, atMs: number, channel: number, seq: number): void {
    const i = this.docs.length;
    this.docs.push(doc);
    this.atMs[i] = atMs;
    this.channel[i] = channel;
    this.seq[i] = seq;
    this.chars += doc.length;
  }

  /** The batch of what was added (`framed`: each document as a WebSocket text frame); the builder starts empty again. */
  take(framed: boolean): ReplayBatch {
    const { docs } = this;
    const count = docs.length;
    const joined = docs.join('');
    const ends = new Uint32Array(count);
    const asciiDocs = Buffer.byteLength(joined, 'utf8') === joined.length;
    let end = 0;
    for (let i = 0; i < count; i++) {
      const doc = docs[i] as string;
      end += asciiDocs ? doc.length : Buffer.byteLength(doc, 'utf8');
      ends[i] = end;
    }
    let text: string;
    if (asciiDocs) text = framed ? frameAllText(docs, ends) : joined;
    else {
      const encoded = utf8.encode(joined);
      const bytes = framed ? frameAll(encoded, ends) : encoded;
      text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
    }
    const batch = {
      count,
      text,
      // A frame's header byte 0x81 is not ASCII.
      ascii: asciiDocs && !framed,
      ends,
      atMs: this.atMs.slice(0, count),
      channel: this.channel.slice(0, count),
      seq: this.seq.slice(0, count),
    };
    this.docs = [];
    this.chars = 0;
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
  maxChars = BATCH_BYTES,
): AsyncGenerator<ReplayBatch> {
  const render = channels.map((c) => documentsOf(c, format));
  const indexOf = new Map(channels.map((c, i) => [c, i]));
  const seqs = channels.map(() => 0);
  const b = new BatchBuilder();
  for await (const run of runs) {
    const ch = indexOf.get(run.channel);
    if (ch === undefined) throw new Error(`replay batch: channel ${run.channel} not in the request`);
    const doc = render[ch] as (at: string, seq: number, dataJson: string) => string;
    let seq = seqs[ch] as number;
    for (const m of run.items) {
      b.add(doc(m.at ?? new Date(m.atMs).toISOString(), ++seq, m.value), m.atMs, ch, seq);
      if (b.chars >= maxChars || b.count >= BATCH_MESSAGES) yield b.take(format === 'ws');
    }
    seqs[ch] = seq;
  }
  if (b.count > 0) yield b.take(format === 'ws');
}
