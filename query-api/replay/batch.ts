/**
 * Replay messages rendered in batches: a batch is the documents (lines.ts) of up to BATCH_MESSAGES consecutive
 * messages (or about BATCH_BYTES of them) encoded once into one UTF-8 buffer, with each message's end offset,
 * instant, channel and sequence number beside it in typed arrays. A transport then writes a batch's bytes at once
 * (NDJSON) or one slice a message (WebSocket frames) without rendering anything itself, and a batch crosses a thread
 * as five transferred buffers (query-api/replay/thread). Pure: no I/O of its own.
 */
import { documentsOf, type DocumentFormat } from './lines.ts';
import type { MergedRun } from './merge.ts';
import type { ReplayData } from './sources.ts';

/** `ndjson`: each message its line (GET /v2/replay); `ws`: each its `replay` notification (public/replay). */
export type ReplayFormat = DocumentFormat;

export interface ReplayBatch {
  readonly count: number;
  /** The messages' documents one after the other, UTF-8 (its own ArrayBuffer: transferable). */
  readonly bytes: Uint8Array;
  /** End of each message's document in `bytes` (the first starts at 0, each next where the previous ends). */
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

  /** The batch of what was added; the builder starts empty again. */
  take(): ReplayBatch {
    const { docs } = this;
    const count = docs.length;
    const text = docs.join('');
    const bytes = utf8.encode(text);
    const ends = new Uint32Array(count);
    const ascii = bytes.length === text.length;
    let end = 0;
    for (let i = 0; i < count; i++) {
      const doc = docs[i] as string;
      end += ascii ? doc.length : Buffer.byteLength(doc, 'utf8');
      ends[i] = end;
    }
    const batch = {
      count,
      bytes,
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
      if (b.chars >= maxChars || b.count >= BATCH_MESSAGES) yield b.take();
    }
    seqs[ch] = seq;
  }
  if (b.count > 0) yield b.take();
}
