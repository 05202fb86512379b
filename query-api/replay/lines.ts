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

export type DocumentFormat = 'ndjson' | 'ws';

/** What a `replay` notification has before its params. */
const NOTIFICATION_HEAD = '{"jsonrpc":"2.0","method":"replay","params":';
const SEQ_TEXT = '","seq":';
const DATA_TEXT = ',"data":';

/**
 * The text around a channel's variable fields: a document is `head` + the ISO instant + SEQ + the seq + DATA + the
 * data + `tail`, for `ndjson` a message line, for `ws` a `replay` notification (JSON-RPC, params the line's fields).
 */
function partsText(channel: string, format: DocumentFormat): { readonly head: string; readonly tail: string } {
  const head = `{"channel":${JSON.stringify(channel)},"at":"`;
  return format === 'ndjson' ? { head, tail: '}\n' } : { head: `${NOTIFICATION_HEAD}${head}`, tail: '}}' };
}

/**
 * The documents of one channel's messages, its name serialized once. `at` is the ISO text of the instant, `dataJson`
 * the data serialized.
 */
export function documentsOf(channel: string, format: DocumentFormat): (at: string, seq: number, dataJson: string) => string {
  const { head, tail } = partsText(channel, format);
  return (at, seq, dataJson) => `${head}${at}${SEQ_TEXT}${seq}${DATA_TEXT}${dataJson}${tail}`;
}

/**
 * The constant parts of one channel's documents, UTF-8, for a writer that puts the variable ones in between itself
 * (batch.ts, for data already encoded): `head` + the ISO instant + SEQ_PART + the seq + DATA_PART + the data + `tail`
 * is the document documentsOf makes.
 */
export interface DocumentParts {
  readonly head: Buffer;
  readonly tail: Buffer;
}

export const SEQ_PART = Buffer.from(SEQ_TEXT, 'latin1');
export const DATA_PART = Buffer.from(DATA_TEXT, 'latin1');

export function documentPartsOf(channel: string, format: DocumentFormat): DocumentParts {
  const { head, tail } = partsText(channel, format);
  return { head: Buffer.from(head, 'utf8'), tail: Buffer.from(tail, 'utf8') };
}

/** One message line (documentsOf for a single message). */
export const messageLine = (channel: string, atMs: number, seq: number, dataJson: string): string =>
  documentsOf(channel, 'ndjson')(new Date(atMs).toISOString(), seq, dataJson);

/** One `replay` notification (documentsOf for a single message). */
export const replayNotification = (channel: string, atMs: number, seq: number, dataJson: string): string =>
  documentsOf(channel, 'ws')(new Date(atMs).toISOString(), seq, dataJson);

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
