/**
 * Messages between the ingest thread and the thread that owns the bus (ingest/thread). A publish carries its
 * messages packed: every value copied once into one buffer whose memory is transferred, not cloned (a structured
 * clone of a Buffer view copies its whole backing pool, and one clone per message costs more than the parse).
 */
import type { BusMessage } from '#bus/types.ts';
import type { MetricObjectWithValues, MetricValue } from 'prom-client';

export interface PackedMessages {
  /** The distinct keys of the messages (a batch has a few: one per venue and symbol). */
  readonly keyTable: readonly string[];
  /** Per message, the index of its key in keyTable. */
  readonly keyIndex: Uint32Array;
  /** End offset of each value in `body` (the first starts at 0). */
  readonly ends: Uint32Array;
  readonly body: ArrayBuffer;
  /** Per message, or absent when no message has them. */
  readonly headers?: readonly (Readonly<Record<string, string>> | null)[];
  /** Per message (NaN: none), or absent when no message has one. */
  readonly timestamps?: Float64Array;
}

/** The buffers of a pack, moved (not copied) by postMessage. */
export function packTransfer(p: PackedMessages): ArrayBuffer[] {
  const out = [p.body, p.keyIndex.buffer as ArrayBuffer, p.ends.buffer as ArrayBuffer];
  if (p.timestamps !== undefined) out.push(p.timestamps.buffer as ArrayBuffer);
  return out;
}

/** From the ingest thread. */
export type ThreadRequest =
  | { readonly kind: 'publish'; readonly id: number; readonly topic: string; readonly packed: PackedMessages }
  | { readonly kind: 'started'; readonly venues: readonly string[] }
  | { readonly kind: 'start-failed'; readonly error: string }
  | { readonly kind: 'metrics'; readonly id: number; readonly metrics: readonly MetricObjectWithValues<MetricValue<string>>[] }
  | { readonly kind: 'status'; readonly id: number; readonly venues: readonly VenueConnections[] }
  | { readonly kind: 'done'; readonly id: number; readonly error?: string };

/** A venue's open and planned sockets. */
export interface VenueConnections {
  readonly venue: string;
  readonly open: number;
  readonly planned: number;
}

/** To the ingest thread. */
export type OwnerMessage =
  | { readonly kind: 'published'; readonly id: number; readonly error?: string }
  | { readonly kind: 'collect-metrics'; readonly id: number }
  | { readonly kind: 'status'; readonly id: number }
  | { readonly kind: 'flush'; readonly id: number }
  | { readonly kind: 'stop'; readonly id: number };

/**
 * The messages as one pack: values copied into one buffer, keys as a table of the distinct ones with an index per
 * message, timestamps as doubles; what crosses the thread is a few buffers moved and a short key list cloned, not a
 * string and a number per message.
 */
export function packMessages(messages: readonly BusMessage[]): PackedMessages {
  const n = messages.length;
  let size = 0;
  for (let i = 0; i < n; i++) size += (messages[i] as BusMessage).value.length;
  const body = new ArrayBuffer(size);
  const bytes = new Uint8Array(body);
  const ends = new Uint32Array(n);
  const keyIndex = new Uint32Array(n);
  const keyTable: string[] = [];
  const keyAt = new Map<string, number>();
  let lastKey: string | undefined;
  let lastIndex = 0;
  let headers: (Readonly<Record<string, string>> | null)[] | undefined;
  let timestamps: Float64Array | undefined;
  let at = 0;
  for (let i = 0; i < n; i++) {
    const m = messages[i] as BusMessage;
    bytes.set(m.value, at);
    at += m.value.length;
    ends[i] = at;
    // A run of one key is the usual case (a frame's events); keys of one (venue, symbol) are one string (eventKey).
    if (m.key !== lastKey) {
      lastKey = m.key;
      let k = keyAt.get(lastKey);
      if (k === undefined) keyAt.set(lastKey, (k = keyTable.push(lastKey) - 1));
      lastIndex = k;
    }
    keyIndex[i] = lastIndex;
    if (m.headers !== undefined) (headers ??= new Array<null>(n).fill(null))[i] = m.headers;
    if (m.timestamp !== undefined) (timestamps ??= new Float64Array(n).fill(Number.NaN))[i] = m.timestamp;
  }
  return { keyTable, keyIndex, ends, body, ...(headers ? { headers } : {}), ...(timestamps ? { timestamps } : {}) };
}

/** The messages of a pack; values are views of its body (no copy), keys the table's strings. */
export function unpackMessages(p: PackedMessages): BusMessage[] {
  const n = p.ends.length;
  const out = new Array<BusMessage>(n);
  const { keyTable, keyIndex, headers, timestamps } = p;
  let start = 0;
  for (let i = 0; i < n; i++) {
    const end = p.ends[i] as number;
    const message: { key: string; value: Buffer; headers?: Readonly<Record<string, string>>; timestamp?: number } = {
      key: keyTable[keyIndex[i] as number] as string,
      value: Buffer.from(p.body, start, end - start),
    };
    // Most batches carry no headers (trades): no per-message object spread for them.
    const h = headers?.[i];
    if (h) message.headers = h;
    const ts = timestamps?.[i];
    if (ts !== undefined && ts === ts) message.timestamp = ts;
    out[i] = message;
    start = end;
  }
  return out;
}
