/**
 * Messages between the ingest thread and the thread that owns the bus (ingest/thread). A publish carries its
 * messages packed: every value copied once into one buffer whose memory is transferred, not cloned (a structured
 * clone of a Buffer view copies its whole backing pool, and one clone per message costs more than the parse).
 */
import type { BusMessage } from '#bus/types.ts';
import type { MetricObjectWithValues, MetricValue } from 'prom-client';

export interface PackedMessages {
  readonly keys: readonly string[];
  /** End offset of each value in `body` (the first starts at 0). */
  readonly ends: Uint32Array;
  readonly body: ArrayBuffer;
  /** Per message, or absent when no message has them. */
  readonly headers?: readonly (Readonly<Record<string, string>> | null)[];
  readonly timestamps?: readonly (number | null)[];
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

export function packMessages(messages: readonly BusMessage[]): PackedMessages {
  let size = 0;
  for (const m of messages) size += m.value.length;
  const body = new ArrayBuffer(size);
  const bytes = new Uint8Array(body);
  const ends = new Uint32Array(messages.length);
  const keys = new Array<string>(messages.length);
  let headers: (Readonly<Record<string, string>> | null)[] | undefined;
  let timestamps: (number | null)[] | undefined;
  let at = 0;
  messages.forEach((m, i) => {
    bytes.set(m.value, at);
    at += m.value.length;
    ends[i] = at;
    keys[i] = m.key;
    if (m.headers !== undefined) (headers ??= new Array<null>(messages.length).fill(null))[i] = m.headers;
    if (m.timestamp !== undefined) (timestamps ??= new Array<null>(messages.length).fill(null))[i] = m.timestamp;
  });
  return { keys, ends, body, ...(headers ? { headers } : {}), ...(timestamps ? { timestamps } : {}) };
}

/** The messages of a pack; values are views of its body (no copy). */
export function unpackMessages(p: PackedMessages): BusMessage[] {
  const out = new Array<BusMessage>(p.keys.length);
  const { headers, timestamps } = p;
  let start = 0;
  for (let i = 0; i < p.keys.length; i++) {
    const end = p.ends[i] as number;
    const message: { key: string; value: Buffer; headers?: Readonly<Record<string, string>>; timestamp?: number } = {
      key: p.keys[i] as string,
      value: Buffer.from(p.body, start, end - start),
    };
    // Most batches carry neither (trades): no per-message object spread for them.
    const h = headers?.[i];
    if (h) message.headers = h;
    const ts = timestamps?.[i];
    if (ts !== undefined && ts !== null) message.timestamp = ts;
    out[i] = message;
    start = end;
  }
  return out;
}
