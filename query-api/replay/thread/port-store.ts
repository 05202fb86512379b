/**
 * The replay thread's store: the reads of the replay code (`query`, `queryColumns`) made by the thread that owns the
 * store (`queryBytes` there) and decoded here (clickhouse/read-formats.ts), so the JSON parsing and column decoding
 * of a replay stay off the owner's event loop. A failure comes back as the store's own error class. Read-only:
 * `command` and `insert` are refused. Each result it receives is its own (moved from the owner), so it frees them
 * itself: at once when decoded, or at `releaseColumns` for a read with views (whose columns refer to the bytes).
 */
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { StoreError, StoreQueryError, StoreUnavailableError } from '#clickhouse/errors.ts';
import type { QueryParams } from '#clickhouse/params.ts';
import { readColumns, readJsonEachRow, type ColumnsOptions, type StatementBody } from '#clickhouse/read-formats.ts';
import type { ColumnsResult, Store, StoreKind } from '#clickhouse/store.ts';
import type { CrossingError, OwnerMessage, ThreadMessage } from './protocol.ts';

/** The store error a crossing error describes. */
export function storeErrorOf(e: CrossingError): Error {
  const op = e.op ?? 'query';
  if (e.name === 'StoreUnavailableError') return new StoreUnavailableError(e.message, op);
  if (e.name === 'StoreQueryError') return new StoreQueryError(e.message, op, e.code ?? null, e.type ?? null);
  if (e.name === 'StoreError') return new StoreError(e.message, op);
  const err = new Error(e.message);
  err.name = e.name;
  return err;
}

/** ArrayBuffer.prototype.transfer (ES2024; Node 22 and later, not Node 20), looked up once. */
const transfer = (ArrayBuffer.prototype as { transfer?: (this: ArrayBuffer, length: number) => ArrayBuffer }).transfer;

/**
 * Where Node has no `transfer` (Node 20): a port whose other end is closed. A buffer posted to it in the transfer
 * list is detached from this isolate and, the message dropped, its backing store freed at once.
 */
const dropPort = ((): MessagePort | null => {
  if (transfer !== undefined) return null;
  const { port1, port2 } = new MessageChannel();
  port2.close();
  port1.unref();
  return port1;
})();

/**
 * Frees a decoded result's memory now rather than at this thread's next garbage collection: a result that arrived
 * from the owner is an ArrayBuffer of this isolate (~2.5 MB a levels read), counted as its external memory and held
 * until collected (on Node 20 in glibc's heap, which then stays grown). Detaching it (`transfer(0)`, or on Node 20 a
 * message to `dropPort`) releases the backing store at once.
 */
export function releaseResult(bytes: Uint8Array): void {
  const buffer = bytes.buffer as ArrayBuffer;
  if (buffer.byteLength === 0) return;
  if (transfer !== undefined) transfer.call(buffer, 0);
  else dropPort?.postMessage(null, [buffer]);
}

export interface PortStore extends Store {
  /** Hands the owner's answer to its read; true when the message was one. */
  answer(m: OwnerMessage): boolean;
}

/**
 * The store of the thread that owns `port`'s other end (`kind` is that store's); `settings` go into every read's
 * SETTINGS clause (the replay's statements have none of their own).
 */
export function portStore(port: MessagePort, kind: StoreKind, settings = ''): PortStore {
  const waiting = new Map<number, { resolve(b: Uint8Array): void; reject(e: Error): void }>();
  let next = 1;
  const bytes = (sql: string, params: QueryParams): Promise<Uint8Array> =>
    new Promise((resolve, reject) => {
      const qid = next++;
      waiting.set(qid, { resolve, reject });
      port.postMessage({ kind: 'store-query', qid, sql, params } satisfies ThreadMessage);
    });
  // A read's statements, each result kept in `results` as it arrives.
  const collecting =
    (params: QueryParams, results: Uint8Array[]): StatementBody =>
    (sql) =>
      bytes(sql, params).then((b) => (results.push(b), b));
  // The results a read decodes, released once it has (nothing of a decoded result refers to its bytes).
  const decoded = async <T>(params: QueryParams, read: (body: StatementBody) => Promise<T>): Promise<T> => {
    const results: Uint8Array[] = [];
    try {
      return await read(collecting(params, results));
    } finally {
      for (const b of results) releaseResult(b);
    }
  };
  // A read with views refers to its bytes: they are released when the caller is done with it (releaseColumns).
  const held = new WeakMap<ColumnsResult, Uint8Array[]>();
  const viewed = async (sql: string, params: QueryParams, options: ColumnsOptions): Promise<ColumnsResult> => {
    const results: Uint8Array[] = [];
    const r = await readColumns(collecting(params, results), sql, settings, options);
    held.set(r, results);
    return r;
  };
  const readOnly = (op: 'command' | 'insert'): Promise<never> =>
    Promise.reject(new StoreQueryError(`the replay thread's store is read-only (${op})`, op, null, null));
  return {
    kind,
    query: <T>(sql: string, params: QueryParams = {}) => decoded(params, (body) => readJsonEachRow<T>(body, sql, settings)),
    queryColumns: (sql, params = {}, options = {}) =>
      (options.views ?? []).length === 0 ? decoded(params, (body) => readColumns(body, sql, settings)) : viewed(sql, params, options),
    releaseColumns(result) {
      for (const b of held.get(result) ?? []) releaseResult(b);
      held.delete(result);
    },
    queryBytes: (sql, params = {}) => bytes(sql, params),
    command: () => readOnly('command'),
    insert: () => readOnly('insert'),
    // The owner's store answers a trivial read (never throws, as Store.ping).
    ping: () =>
      bytes('SELECT 1 FORMAT TSV', {}).then(
        () => true,
        () => false,
      ),
    // Nothing of its own to close: the store is the owner's.
    close: () => Promise.resolve(),
    answer(m) {
      if (m.kind !== 'store-answer' && m.kind !== 'store-error') return false;
      const w = waiting.get(m.qid);
      waiting.delete(m.qid);
      if (m.kind === 'store-answer') w?.resolve(m.bytes);
      else w?.reject(storeErrorOf(m.error));
      return true;
    },
  };
}
