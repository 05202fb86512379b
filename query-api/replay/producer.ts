/**
 * Where a replay's batches are made (store reads, merge, rendering): on this thread (`inThreadProducer`), or on the
 * replay thread (thread/replay-thread.ts, the API's default: REPLAY_THREAD), which keeps that work off the event loop
 * that serves requests and the live feed. Both run the same code (stream.ts, batch.ts) and give the same bytes.
 */
import type { Store } from '#clickhouse/store.ts';
import { replayBatches, type ReplayBatch, type ReplayFormat } from './batch.ts';
import type { ReplayRequest } from './request.ts';
import { REPLAY_PAGE } from './sources.ts';
import { replayRuns } from './stream.ts';

export interface ReplayProducer {
  /**
   * The replay's batches in stream order, made as they are pulled (at most a batch or two ahead); `page` bounds each
   * store read (REPLAY_PAGE; tests use smaller pages). Returning early stops the replay's reads.
   */
  batches(request: ReplayRequest, format: ReplayFormat, page?: number): AsyncGenerator<ReplayBatch>;
  /** Ends what the producer holds (the thread); replays still running fail. */
  close(): Promise<void>;
}

/** Batches made on this thread, from `store`. */
export function inThreadProducer(store: Store): ReplayProducer {
  return {
    batches: (request, format, page = REPLAY_PAGE) =>
      replayBatches(
        replayRuns(store, request, page),
        request.channels.map((c) => c.name),
        format,
      ),
    // Holds nothing between replays.
    close: () => Promise.resolve(),
  };
}
