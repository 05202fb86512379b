/**
 * Plan limits of replays (published in /v2/meta `websocket.replay` and the AsyncAPI document): concurrent replays per
 * user across the WebSocket method and GET /v2/replay, and the speeds a WebSocket replay accepts. The window is
 * clamped to the plan's history window as every `as_of` read is (limits/history-clamp.ts).
 */
import { TurnShare } from '#platform/turn-share.ts';
import type { Level } from '../accounts/plans.ts';

/** Concurrent replays per user (WebSocket `public/replay` and GET /v2/replay together), by plan level. */
export const REPLAY_CAPS: Readonly<Record<Level, number>> = { starter: 1, standard: 2, pro: 5, enterprise: 20 };

/** Real-time multiples a WebSocket replay accepts, besides "max". */
export const MIN_REPLAY_SPEED = 0.1;
export const MAX_REPLAY_SPEED = 1_000_000;

/** A real-time multiple, or 'max' (as fast as the client reads). */
export type ReplaySpeed = number | 'max';

/** Send-buffer level above which a WebSocket replay waits (below the session's 4 MiB bound: live notifications still fit). */
export const REPLAY_HIGH_WATER = 1024 * 1024;
/** Once above the high-water mark, a replay writes again when the buffer is down to this. */
export const REPLAY_LOW_WATER = REPLAY_HIGH_WATER / 2;
/** A client that does not take REPLAY_HIGH_WATER - REPLAY_LOW_WATER bytes within this long is closed with 4009. */
export const REPLAY_STALL_MS = 30_000;

/**
 * The replays' share of the API's event loop: all replays of the process (both transports) together write at most
 * 2 ms or 128 KiB of output per event-loop turn, one replay a turn in turn (platform/turn-share.ts), so requests and
 * live notifications wait for one share at most, however many replays run.
 */
export const REPLAY_TURNS = new TurnShare();
