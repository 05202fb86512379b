/**
 * The replay thread: every replay of the API (GET /v2/replay, the WebSocket `public/replay`) made on one worker thread
 * (worker.ts), so the store's result parsing, the merge and the rendering of up to hundreds of thousands of messages a
 * second never hold the event loop that answers requests and fans out the live feed. What stays here: the store reads
 * themselves (the thread asks, this thread runs `queryBytes` and hands the bytes over) and writing each batch to its
 * socket.
 * - Started at the first replay; a thread that ends (an error in it, or `close`) fails the replays it was making and
 *   the next replay starts a new one.
 * - Flow: the thread makes batches ahead of each replay's consumer, REPLAY_BATCHES_AHEAD shared by the open replays
 *   (a `pull` is sent for each batch the consumer takes in hand), so a replay holds at most the batch being written
 *   and a few made or being made, whatever the window.
 */
import type { Worker } from 'node:worker_threads';
import PQueue from 'p-queue';
import type { Store } from '#clickhouse/store.ts';
import { childLogger } from '#platform/log.ts';
import { startTsWorker } from '#platform/threads/ts-worker.ts';
import { lowerV8WorkerPriority } from '#platform/threads/v8-workers.ts';
import { stopAllocationSitePretenuring } from '#platform/v8-pretenuring.ts';
import type { ReplayBatch, ReplayFormat } from '../batch.ts';
import { replayMetrics } from '../metrics.ts';
import type { ReplayProducer } from '../producer.ts';
import type { ReplayRequest } from '../request.ts';
import { REPLAY_PAGE } from '../sources.ts';
import { storeErrorOf } from './port-store.ts';
import { crossingError, type OwnerMessage, type ReplayThreadData, type ThreadMessage } from './protocol.ts';

const log = childLogger('replay.thread');

/**
 * Niceness of the replay thread and of its reads in the store's engine (Linux): the lowest priority, so that on a busy
 * machine the API's event loop, the other roles and the engine's other queries run first; alone on the machine a
 * replay runs as fast as with none. Unless told otherwise (ReplayThreadOptions.lowerV8Workers), V8's platform worker
 * threads (platform/threads/v8-workers.ts) take it too when the thread starts: they run the replay thread's garbage
 * collection, which at full priority took the cores from the event loop under 20 replays at speed max (they serve
 * the event loop's isolate as well, which then does more of its own collections itself on a busy machine).
 */
export const REPLAY_NICE = 19;

/**
 * Young generation of the replay thread's V8 heap, MB (its `resourceLimits`; V8's own is 48 MB on Node 20 and 96 MB on
 * Node 26). What the thread allocates dies young (a read's decoded rows, the rendered documents, each batch's text), so
 * a smaller young generation costs little, and the process does not grow by a large one: the first replay of 30 days
 * of levels grew the server's RSS by 89 MB with 16 against 103 MB with V8's own, at the same speed. 8 MB saved more
 * (+81 MB) but cut the tape replay by a third: a tape page's rendering outlived the smaller semi-spaces
 * (bench/RESULTS.md "replay").
 */
export const REPLAY_YOUNG_GENERATION_MB = 16;

/**
 * Old generation of the replay thread's V8 heap, MB (its `resourceLimits`): where the thread's heap stops, and what
 * sets how far V8 lets it grow between full collections. V8 lets a heap whose limit is 2 GiB or more grow to 4x what
 * survived the last full collection, a smaller one to 1.3-2x: at V8's own limit the thread's heap grew from 21 to
 * ~62 MB during a levels replay (its live data ~15 MB), at 1,536 MB to ~40 MB, at the same speed (bench/RESULTS.md
 * "replay"). What the thread holds is bounded per replay (a page or two of each channel, ~3 MB: 90 MB at most under
 * 20 concurrent replays); past this limit the thread ends, its replays fail and the next replay starts a new thread.
 */
export const REPLAY_OLD_GENERATION_MB = 1_536;

/**
 * Store reads the replays have running at once, all replays together: the others wait in arrival order. On the
 * embedded store a read holds one of its read sessions (STORE_READ_SESSIONS, 2 by default) for its length, so the
 * replays keep at least one free for the API's requests. Measured on 2 cores (a scratch script, 1 M trades: a 100-row
 * read every 20 ms beside four readers of 10,000-row pages back to back): the small read's p50 / p99 was 10-11 / 19-25
 * ms alone, 50 / 81 ms with the four readers on both sessions, 17 / 87 ms with them one at a time.
 */
export const REPLAY_READS = 1;

/**
 * Batches the thread makes ahead of the replays' consumers (pulls not yet answered, and batches not yet taken), shared
 * equally by the open replays, at least one each: a replay alone has 4, two have 2 each, three and more 1 each.
 * - A replay alone, one batch ahead, waited for a message's round trip between the threads after each batch (~64 KiB,
 *   ~0.4 ms of the tape's rendering): over 6 alternating quick runs its tape ran at 0.72-1.00x the store's page reads
 *   alone (mean 0.83x), four ahead at 0.85-1.14x (mean 1.01x) (bench/RESULTS.md "replay").
 * - Under 20 replays the thread is busy anyway, and each batch made ahead is one more 64 KiB string the event loop
 *   takes in as it arrives: four ahead each (not shared) raised the live feed's p99 from 6.4-8.9 to 7.8-12.3 ms.
 */
export const REPLAY_BATCHES_AHEAD = 4;

export interface ReplayThreadOptions {
  /** Move V8's platform worker threads to REPLAY_NICE when the thread starts (setting REPLAY_LOWERS_V8_WORKERS). */
  readonly lowerV8Workers: boolean;
  /**
   * Stop V8's allocation-site pretenuring for the process when the thread starts (setting REPLAY_STOPS_PRETENURING,
   * platform/v8-pretenuring.ts). The replay thread's per-trade objects then die young: in the whole
   * replay bench its tape ran at 262-284k trades/s against 228-235k (bench/RESULTS.md "replay").
   */
  readonly stopPretenuring: boolean;
}

/** Whether this process's V8 platform workers were moved to REPLAY_NICE (once per process). */
let v8WorkersLowered = false;

function lowerV8WorkersOnce(): void {
  if (v8WorkersLowered) return;
  v8WorkersLowered = true;
  const tids = lowerV8WorkerPriority(REPLAY_NICE);
  log.info({ threads: tids.length, nice: REPLAY_NICE }, 'V8 platform worker threads lowered to the replay priority');
}

/** One open replay as this thread sees it: the batches arrived and not taken, the consumer waiting for one. */
class OpenReplay {
  readonly ready: ReplayBatch[] = [];
  /** Pulls sent and not answered yet. */
  requested = 0;
  end: { readonly error: Error | null } | null = null;
  private waiter: (() => void) | null = null;

  arrived(): void {
    const w = this.waiter;
    this.waiter = null;
    w?.();
  }

  wait(): Promise<void> {
    return new Promise((resolve) => (this.waiter = resolve));
  }
}

export class ReplayThread implements ReplayProducer {
  private worker: Worker | null = null;
  private readonly open = new Map<number, OpenReplay>();
  private readonly reads = new PQueue({ concurrency: REPLAY_READS });
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly store: Store,
    private readonly options: ReplayThreadOptions = { lowerV8Workers: true, stopPretenuring: true },
  ) {}

  async *batches(request: ReplayRequest, format: ReplayFormat, page = REPLAY_PAGE): AsyncGenerator<ReplayBatch> {
    if (this.closed) throw new Error('the replay thread is closed');
    const worker = this.started();
    const id = this.nextId++;
    const replay = new OpenReplay();
    this.open.set(id, replay);
    const send = (m: OwnerMessage): void => worker.postMessage(m);
    // Pulls until the replay's share of REPLAY_BATCHES_AHEAD is asked for or waiting (none once it has ended).
    const topUp = (): void => {
      const share = Math.max(1, Math.floor(REPLAY_BATCHES_AHEAD / this.open.size));
      while (replay.end === null && replay.requested + replay.ready.length < share) {
        replay.requested++;
        send({ kind: 'pull', id });
      }
    };
    send({ kind: 'open', id, request, format, page });
    topUp();
    try {
      for (;;) {
        const batch = replay.ready.shift();
        if (batch !== undefined) {
          // The next batches are made while this one is written.
          topUp();
          yield batch;
          continue;
        }
        if (replay.end !== null) {
          if (replay.end.error !== null) throw replay.end.error;
          return;
        }
        await replay.wait();
      }
    } finally {
      this.open.delete(id);
      if (replay.end === null && this.worker === worker) send({ kind: 'close', id });
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = null;
    this.failAll(new Error('the replay thread is closed'));
    await worker?.terminate();
  }

  private started(): Worker {
    if (this.worker !== null) return this.worker;
    if (this.options.lowerV8Workers) lowerV8WorkersOnce();
    if (this.options.stopPretenuring && stopAllocationSitePretenuring())
      log.info("V8's allocation-site pretenuring stopped for the process");
    const data: ReplayThreadData = { storeKind: this.store.kind, nice: REPLAY_NICE };
    const worker = startTsWorker(new URL('./worker.ts', import.meta.url), data, 'gex-replay', {
      maxYoungGenerationSizeMb: REPLAY_YOUNG_GENERATION_MB,
      maxOldGenerationSizeMb: REPLAY_OLD_GENERATION_MB,
    });
    this.worker = worker;
    worker.on('message', (m: ThreadMessage) => this.onMessage(worker, m));
    const ended = (err: Error): void => {
      if (this.worker !== worker) return;
      this.worker = null;
      replayMetrics.threadEnds.inc();
      log.error({ err }, 'replay thread ended; its replays failed, the next replay starts a new one');
      this.failAll(err);
    };
    worker.on('error', ended);
    worker.on('exit', (code) => ended(new Error(`the replay thread exited (code ${code})`)));
    log.info('replay thread started');
    return worker;
  }

  private onMessage(worker: Worker, m: ThreadMessage): void {
    if (m.kind === 'store-query') {
      this.reads
        .add(() => this.readFor(worker, m))
        .catch((err: unknown) => log.warn({ err }, 'replay thread: a read could not be answered'));
      return;
    }
    const replay = this.open.get(m.id);
    if (replay === undefined) return;
    replay.requested--;
    // The pulls after the end are answered `done` too: the first end stands.
    if (m.kind === 'batch') replay.ready.push(m.batch);
    else replay.end ??= { error: m.kind === 'failed' ? storeErrorOf(m.error) : null };
    replay.arrived();
  }

  /** Runs the thread's read `m` on the store and answers it (the bytes, or the error). */
  private readFor(worker: Worker, m: Extract<ThreadMessage, { kind: 'store-query' }>): Promise<void> {
    return this.store.queryBytes(m.sql, m.params).then(
      (bytes) => {
        const answer = (b: Uint8Array, transfer: ArrayBuffer[]): void =>
          worker.postMessage({ kind: 'store-answer', qid: m.qid, bytes: b } satisfies OwnerMessage, transfer);
        // A result that owns its whole buffer moves to the thread; any other (a view into a larger or pooled
        // buffer, or one that cannot be transferred) crosses as a copy.
        if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) {
          try {
            return answer(bytes, [bytes.buffer as ArrayBuffer]);
          } catch {
            // not transferable: copied below
          }
        }
        const own = new Uint8Array(bytes);
        answer(own, [own.buffer]);
      },
      (err: unknown) => worker.postMessage({ kind: 'store-error', qid: m.qid, error: crossingError(err) } satisfies OwnerMessage),
    );
  }

  private failAll(err: Error): void {
    for (const replay of this.open.values()) {
      replay.end ??= { error: err };
      replay.arrived();
    }
  }
}
