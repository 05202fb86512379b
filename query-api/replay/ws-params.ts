/**
 * The params of a WebSocket `public/replay` request → the replay request and its speed, or every problem found.
 * `channels`: an array of feed channel names; `from`, `to`: ISO-8601 instants or epoch ms (string or number);
 * `speed`: "max" (default) or a real-time multiple in [MIN_REPLAY_SPEED, MAX_REPLAY_SPEED]. Pure.
 */
import { MAX_REPLAY_SPEED, MIN_REPLAY_SPEED, type ReplaySpeed } from './caps.ts';
import { parseReplayWindow, type ReplayProblem, type ReplayRequest } from './request.ts';

export type ParsedWsReplay =
  | { readonly ok: true; readonly request: ReplayRequest; readonly speed: ReplaySpeed }
  | { readonly ok: false; readonly problems: readonly ReplayProblem[] };

const text = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : '');

function speedOf(v: unknown, problems: ReplayProblem[]): ReplaySpeed {
  if (v === undefined || v === 'max') return 'max';
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  if (Number.isFinite(n) && n >= MIN_REPLAY_SPEED && n <= MAX_REPLAY_SPEED) return n;
  problems.push({
    name: 'speed',
    message: `"max" or a real-time multiple from ${MIN_REPLAY_SPEED} to ${MAX_REPLAY_SPEED}`,
    received: JSON.stringify(v ?? null).slice(0, 64),
  });
  return 'max';
}

export function parseWsReplay(params: Readonly<Record<string, unknown>>, nowMs: number): ParsedWsReplay {
  const problems: ReplayProblem[] = [];
  const raw = params['channels'];
  const names = Array.isArray(raw) ? raw.filter((c): c is string => typeof c === 'string') : [];
  if (!Array.isArray(raw) || names.length !== raw.length)
    problems.push({ name: 'channels', message: 'an array of channel names', received: JSON.stringify(raw ?? null).slice(0, 200) });
  const speed = speedOf(params['speed'], problems);
  const parsed = parseReplayWindow({ channels: names, from: text(params['from']), to: text(params['to']) }, nowMs);
  if (!parsed.ok) problems.push(...parsed.problems.filter((p) => !(p.name === 'channels' && problems.some((q) => q.name === 'channels'))));
  if (problems.length > 0 || !parsed.ok) return { ok: false, problems };
  return { ok: true, request: parsed.request, speed };
}
