/**
 * The replay stream: the channels' stored histories (sources.ts) merged in time order (merge.ts) into runs of one
 * channel's messages. Pulled one run at a time, so memory stays bounded by a page per channel whatever the window;
 * the same window gives the same messages (stored rows are immutable, every order is total). Messages are numbered
 * per channel (`seq`, 1, 2, ...) by whoever renders them:
 * - replayBatches (batch.ts): the documents in batches, for GET /v2/replay and public/replay (producer.ts);
 * - replayLines: the NDJSON lines (lines.ts) one by one, ending with the `replay_done` line (`gex replay --data-dir`).
 */
import type { Store } from '#clickhouse/store.ts';
import type { HistoryClamp } from '../limits/history-clamp.ts';
import { documentsOf, doneLine } from './lines.ts';
import { mergeReplay, type MergedRun } from './merge.ts';
import type { ReplayRequest } from './request.ts';
import { dataText, type ReplayData } from './data.ts';
import { REPLAY_PAGE, replaySource } from './sources.ts';

/** The merged runs of a replay in stream order; `page` bounds each store read (REPLAY_PAGE; tests use smaller pages). */
export function replayRuns(store: Store, request: ReplayRequest, page = REPLAY_PAGE): AsyncGenerator<MergedRun<ReplayData>> {
  const window = { fromMs: request.fromMs, toMs: request.toMs };
  return mergeReplay(request.channels.map((c) => replaySource(store, c, window, page)));
}

/** The lines of a replay; `clamp` (the plan's history clamp, when it cut the window) goes into the done line. */
export async function* replayLines(store: Store, request: ReplayRequest, clamp?: HistoryClamp, page = REPLAY_PAGE): AsyncGenerator<string> {
  const counts = new Map<string, number>(request.channels.map((c) => [c.name, 0]));
  const lines = new Map(request.channels.map((c) => [c.name, documentsOf(c.name, 'ndjson')]));
  for await (const run of replayRuns(store, request, page)) {
    let seq = counts.get(run.channel) ?? 0;
    const line = lines.get(run.channel) ?? documentsOf(run.channel, 'ndjson');
    // Each line made before the next run is pulled (a run's encoded data is valid until then: data.ts).
    for (const m of run.items) yield line(new Date(m.atMs).toISOString(), ++seq, dataText(m.value));
    counts.set(run.channel, seq);
  }
  yield doneLine(request.fromMs, request.toMs, counts, clamp);
}
