/**
 * A replay request (the `channels`, `from`, `to` of GET /v2/replay and `gex replay`) → the channels and the window,
 * or the problems found. Channels are those of the WebSocket feed (ws/protocol.ts: `tape.{symbol}`,
 * `levels.{symbol}[.{venue,...}]`, `chain.{symbol}[.{venue,...}]`), canonical names, duplicates removed, request
 * order kept. Instants are ISO-8601 with a time zone or integer epoch ms; the window [from, to] is inclusive,
 * from < to, `to` not in the future. Pure.
 */
import { isIsoInstant } from '../params/query-params.ts';
import { parseChannel, type Channel } from '../ws/protocol.ts';

/** Channels per replay. */
export const MAX_REPLAY_CHANNELS = 8;

export interface ReplayRequest {
  readonly channels: readonly Channel[];
  /** ms UTC, inclusive. */
  readonly fromMs: number;
  /** ms UTC, inclusive. */
  readonly toMs: number;
}

export interface ReplayProblem {
  readonly name: 'channels' | 'from' | 'to' | 'speed';
  readonly message: string;
  readonly received: string;
}

export type ParsedReplay =
  { readonly ok: true; readonly request: ReplayRequest } | { readonly ok: false; readonly problems: ReplayProblem[] };

const MS = /^\d{1,15}$/;

/** Epoch ms of an ISO instant or of integer epoch ms text; null when neither. */
export function replayInstant(text: string): number | null {
  if (MS.test(text)) return Number(text);
  return isIsoInstant(text) ? Date.parse(text) : null;
}

/** The channel names of a `channels` query value: a venue list is comma-separated inside a name, so the text is split on
 * the commas that start a new channel kind. */
export function splitChannels(text: string): string[] {
  return text
    .split(/,(?=\s*(?:tape|levels|chain)\.)/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function channelsOf(names: readonly string[], problems: ReplayProblem[]): Channel[] {
  const unknown = names.filter((n) => parseChannel(n) === null);
  if (unknown.length > 0)
    problems.push({
      name: 'channels',
      message: 'unknown channel or symbol; channels: tape.{symbol}, levels.{symbol}[.{venue,...}], chain.{symbol}[.{venue,...}]',
      received: unknown.join(',').slice(0, 200),
    });
  const channels = new Map<string, Channel>();
  for (const n of names) {
    const c = parseChannel(n);
    if (c !== null) channels.set(c.name, c);
  }
  if (names.length === 0) problems.push({ name: 'channels', message: 'at least one channel', received: names.join(',').slice(0, 200) });
  if (channels.size > MAX_REPLAY_CHANNELS)
    problems.push({ name: 'channels', message: `at most ${MAX_REPLAY_CHANNELS} channels`, received: String(channels.size) });
  return [...channels.values()];
}

/** The request of GET /v2/replay or `gex replay` (channels as one comma-separated value), or every problem found. */
export function parseReplayRequest(
  q: { readonly channels: string; readonly from: string; readonly to: string },
  nowMs: number,
): ParsedReplay {
  return parseReplayWindow({ channels: splitChannels(q.channels), from: q.from, to: q.to }, nowMs);
}

/** The request from channel names, or every problem found (channels, from, to, from < to, to not after `nowMs`). */
export function parseReplayWindow(
  q: { readonly channels: readonly string[]; readonly from: string; readonly to: string },
  nowMs: number,
): ParsedReplay {
  const problems: ReplayProblem[] = [];
  const channels = channelsOf(q.channels, problems);
  const fromMs = replayInstant(q.from);
  const toMs = replayInstant(q.to);
  const instantHelp = 'an ISO-8601 instant with a time zone (2026-10-01T12:00:00Z) or epoch milliseconds';
  if (fromMs === null) problems.push({ name: 'from', message: instantHelp, received: q.from.slice(0, 64) });
  if (toMs === null) problems.push({ name: 'to', message: instantHelp, received: q.to.slice(0, 64) });
  if (fromMs !== null && toMs !== null && fromMs >= toMs) problems.push({ name: 'from', message: 'must be before `to`', received: q.from });
  if (toMs !== null && toMs > nowMs)
    problems.push({ name: 'to', message: `must not be in the future (now ${new Date(nowMs).toISOString()})`, received: q.to });
  if (problems.length > 0 || fromMs === null || toMs === null) return { ok: false, problems };
  return { ok: true, request: { channels, fromMs, toMs } };
}
