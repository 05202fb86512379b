/**
 * The documents of a replay: the lines of its NDJSON stream (one JSON document per line, `\n`-terminated) and its
 * WebSocket notifications (a message's line fields as the `replay` notification's params):
 * - a message `{"channel","at","seq","data"}`: `at` the ISO instant the message represents, `seq` the channel's
 *   sequence number (1, 2, ... per channel), `data` exactly the live channel's notification data;
 * - the last line `{"type":"replay_done","from","to","counts"[,"history_clamp"]}`: the served window, the messages
 *   per channel (every requested channel, 0 included, in request order) and, when the plan's history window cut
 *   the requested one, the clamp (limits/history-clamp.ts).
 * Pure.
 */
import type { HistoryClamp } from '../limits/history-clamp.ts';

/** One message document (a line's content, a WebSocket replay notification's params); `dataJson` is the data serialized. */
export function messageJson(channel: string, atMs: number, seq: number, dataJson: string): string {
  return `{"channel":${JSON.stringify(channel)},"at":"${new Date(atMs).toISOString()}","seq":${seq},"data":${dataJson}}`;
}

/** A WebSocket `replay` notification: params are the NDJSON line's fields. */
export const replayNotification = (channel: string, atMs: number, seq: number, dataJson: string): string =>
  `{"jsonrpc":"2.0","method":"replay","params":${messageJson(channel, atMs, seq, dataJson)}}`;

/** One message line. */
export const messageLine = (channel: string, atMs: number, seq: number, dataJson: string): string =>
  `${messageJson(channel, atMs, seq, dataJson)}\n`;

/** The closing document's fields (the NDJSON line adds `type`, the WebSocket notification `replay_id` and `status`). */
export function doneFields(
  fromMs: number,
  toMs: number,
  counts: ReadonlyMap<string, number>,
  clamp?: HistoryClamp,
): { from: string; to: string; counts: Record<string, number>; history_clamp?: HistoryClamp } {
  return {
    from: new Date(fromMs).toISOString(),
    to: new Date(toMs).toISOString(),
    counts: Object.fromEntries(counts),
    ...(clamp !== undefined ? { history_clamp: clamp } : {}),
  };
}

/** The closing line. */
export function doneLine(fromMs: number, toMs: number, counts: ReadonlyMap<string, number>, clamp?: HistoryClamp): string {
  return `${JSON.stringify({ type: 'replay_done', ...doneFields(fromMs, toMs, counts, clamp) })}\n`;
}
