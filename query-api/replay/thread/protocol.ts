/**
 * The messages between the API's thread and its replay thread (replay-thread.ts owns the thread, worker.ts is its
 * entry). The replay thread reads the store through its owner (it never opens the embedded engine itself: a thread
 * that loaded chDB and ended leaves the process's engine unusable), so each store read crosses as a `store-query`
 * and comes back as the statement's raw bytes. A replay's batches come back one per `pull`: the text as a string,
 * the typed arrays transferred.
 */
import type { QueryParams } from '#clickhouse/params.ts';
import type { StoreOp } from '#clickhouse/errors.ts';
import type { StoreKind } from '#clickhouse/store.ts';
import type { ReplayBatch, ReplayFormat } from '../batch.ts';
import type { ReplayRequest } from '../request.ts';

/** What the thread starts with. */
export interface ReplayThreadData {
  /** The owner's store kind (the thread's store reports it). */
  readonly storeKind: StoreKind;
  /** Niceness of the thread and of the engine threads that run its reads (Linux; 0 = the process's). */
  readonly nice: number;
}

/** A store error as it crosses (clickhouse/errors.ts classes rebuilt on the other side). */
export interface CrossingError {
  readonly name: string;
  readonly message: string;
  readonly op?: StoreOp;
  readonly code?: string | null;
  readonly type?: string | null;
}

/** From the owner to the replay thread. */
export type OwnerMessage =
  | { readonly kind: 'open'; readonly id: number; readonly request: ReplayRequest; readonly format: ReplayFormat; readonly page: number }
  | { readonly kind: 'pull'; readonly id: number }
  | { readonly kind: 'close'; readonly id: number }
  | { readonly kind: 'store-answer'; readonly qid: number; readonly bytes: Uint8Array }
  | { readonly kind: 'store-error'; readonly qid: number; readonly error: CrossingError };

/** From the replay thread to its owner. */
export type ThreadMessage =
  | { readonly kind: 'store-query'; readonly qid: number; readonly sql: string; readonly params: QueryParams }
  | { readonly kind: 'batch'; readonly id: number; readonly batch: ReplayBatch }
  | { readonly kind: 'done'; readonly id: number }
  | { readonly kind: 'failed'; readonly id: number; readonly error: CrossingError };

/** The buffers a batch crosses with (transferred, not copied); its text crosses as a string (batch.ts says why). */
export const batchTransfer = (b: ReplayBatch): ArrayBuffer[] =>
  [b.ends.buffer, b.atMs.buffer, b.channel.buffer, b.seq.buffer] as ArrayBuffer[];

/** An error as it crosses: its class name, message and, for a store error, what the store said. */
export function crossingError(err: unknown): CrossingError {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err) };
  const e = err as Error & { op?: StoreOp; code?: unknown; type?: unknown };
  return {
    name: e.name,
    message: e.message,
    ...(e.op !== undefined ? { op: e.op } : {}),
    ...(typeof e.code === 'string' || e.code === null ? { code: e.code } : {}),
    ...(typeof e.type === 'string' || e.type === null ? { type: e.type } : {}),
  };
}
