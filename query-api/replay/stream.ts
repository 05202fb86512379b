/**
 * The replay stream: the channels' stored histories (sources.ts) merged in time order (merge.ts), numbered per
 * channel. Pulled one message at a time, so memory stays bounded by a page per channel whatever the window; the
 * same window gives the same messages (stored rows are immutable, every order is total).
 * - replayMessages: the messages (for a transport that frames them itself, e.g. a WebSocket notification);
 * - replayLines: the NDJSON lines (lines.ts) ending with the `replay_done` line, shared by GET /v2/replay and
 *   `gex replay --data-dir`.
 */
import type { Store } from '#clickhouse/store.ts';
import type { HistoryClamp } from '../limits/history-clamp.ts';
import { doneLine, messageLine } from './lines.ts';
import { mergeReplay } from './merge.ts';
import type { ReplayRequest } from './request.ts';
import { REPLAY_PAGE, replaySource } from './sources.ts';

export interface ReplayMessage {
  readonly channel: string;
  /** The instant the message represents, ms UTC. */
  readonly atMs: number;
  /** 1, 2, ... per channel. */
  readonly seq: number;
  /** The live channel's notification data, serialized. */
  readonly dataJson: string;
}

/** The messages of a replay in stream order; `page` bounds each store read (REPLAY_PAGE; tests use smaller pages). */
export async function* replayMessages(store: Store, request: ReplayRequest, page = REPLAY_PAGE): AsyncGenerator<ReplayMessage> {
  const window = { fromMs: request.fromMs, toMs: request.toMs };
  const seqs = new Map<string, number>();
  for await (const m of mergeReplay(request.channels.map((c) => replaySource(store, c, window, page)))) {
    const seq = (seqs.get(m.channel) ?? 0) + 1;
    seqs.set(m.channel, seq);
    yield { channel: m.channel, atMs: m.atMs, seq, dataJson: m.value };
  }
}

/** The lines of a replay; `clamp` (the plan's history clamp, when it cut the window) goes into the done line. */
export async function* replayLines(store: Store, request: ReplayRequest, clamp?: HistoryClamp, page = REPLAY_PAGE): AsyncGenerator<string> {
  const counts = new Map<string, number>(request.channels.map((c) => [c.name, 0]));
  for await (const m of replayMessages(store, request, page)) {
    counts.set(m.channel, m.seq);
    yield messageLine(m.channel, m.atMs, m.seq, m.dataJson);
  }
  yield doneLine(request.fromMs, request.toMs, counts, clamp);
}
