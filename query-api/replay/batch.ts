/**
 * Replay messages rendered in batches: a batch is the documents of up to BATCH_MESSAGES consecutive messages (or about
 * BATCH_BYTES of them) encoded once into one UTF-8 buffer, with each message's end offset, instant, channel and
 * sequence number beside it in typed arrays. A transport then writes a batch's bytes at once (NDJSON) or one slice a
 * message (WebSocket frames) without rendering anything itself, and a batch crosses a thread as five transferred
 * buffers (query-api/replay/thread). Pure: no I/O of its own.
 */
import { messageLine, replayNotification } from './lines.ts';
import type { ReplayMessage } from './stream.ts';

/** `ndjson`: each message its line (GET /v2/replay, `gex replay`); `ws`: each its `replay` notification (public/replay). */
export type ReplayFormat = 'ndjson' | 'ws';

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
  /** Each message's sequence number in its channel. */
  readonly seq: Uint32Array;
}

/** A batch ends at this many characters of documents (a socket write's worth), or at BATCH_MESSAGES. */
export const BATCH_BYTES = 64 * 1024;
export const BATCH_MESSAGES = 4_096;

const utf8 = new TextEncoder();

/** The documents rendered for `format`, in order, encoded as one batch. */
export function encodeBatch(
  docs: readonly string[],
  atMs: readonly number[],
  channel: readonly number[],
  seq: readonly number[],
): ReplayBatch {
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
  return { count, bytes, ends, atMs: Float64Array.from(atMs), channel: Uint8Array.from(channel), seq: Uint32Array.from(seq) };
}

/** Start offset of message `i` of a batch. */
export const startOf = (b: ReplayBatch, i: number): number => (i === 0 ? 0 : (b.ends[i - 1] as number));

/** The messages' documents in batches; `channels` are the request's channel names (a message's index is its channel's). */
export async function* replayBatches(
  messages: AsyncIterable<ReplayMessage>,
  channels: readonly string[],
  format: ReplayFormat,
  maxChars = BATCH_BYTES,
): AsyncGenerator<ReplayBatch> {
  const indexOf = new Map(channels.map((c, i) => [c, i]));
  const render = format === 'ndjson' ? messageLine : replayNotification;
  let docs: string[] = [];
  let atMs: number[] = [];
  let channel: number[] = [];
  let seq: number[] = [];
  let chars = 0;
  for await (const m of messages) {
    const doc = render(m.channel, m.atMs, m.seq, m.dataJson);
    docs.push(doc);
    atMs.push(m.atMs);
    channel.push(indexOf.get(m.channel) ?? 0);
    seq.push(m.seq);
    chars += doc.length;
    if (chars >= maxChars || docs.length >= BATCH_MESSAGES) {
      yield encodeBatch(docs, atMs, channel, seq);
      docs = [];
      atMs = [];
      channel = [];
      seq = [];
      chars = 0;
    }
  }
  if (docs.length > 0) yield encodeBatch(docs, atMs, channel, seq);
}
