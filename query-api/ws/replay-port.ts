/**
 * What a WebSocket session offers a replay and what it asks of one (the replay itself is query-api/replay/ws-replay.ts,
 * plugged in by the app): the session hands `public/replay*` requests to its replay controller and ends it with the
 * session; the controller writes through the session's bounded output.
 */
import type { Level } from '../accounts/plans.ts';
import type { RpcRequest } from './protocol.ts';

/** The session's side: bounded writes (as the hub's) and its send buffer. */
export interface ReplayOutput {
  /** Bounded write of an encoded text frame; false when the session is closed or was just cut off. */
  deliver(frame: Buffer): boolean;
  /**
   * Bounded write of complete WebSocket text frames (ws/frames.ts: a replay batch or a slice of one) given one
   * character a byte (latin1, as replay batches carry them), in one socket write; false when the session is closed or
   * was just cut off.
   */
  deliverFrames(frames: string): boolean;
  /** Bytes queued on the socket and not yet sent. */
  bufferedAmount(): number;
  /** A JSON-RPC answer. */
  reply(text: string): void;
  /** Closes the session as a slow consumer (4009, `detail` in the reason). */
  cutOff(detail: string): void;
}

/** The authenticated user of the session. */
export interface ReplayClient {
  readonly userId: string;
  readonly level: Level;
  /** The plan's history window in days (null = unlimited). */
  readonly historyDays: number | null;
  /** Evaluation keys have the history window enforced. */
  readonly evaluation: boolean;
}

/** One session's replay methods. */
export interface SessionReplay {
  handle(req: RpcRequest): void;
  /** The session ended: stop the replay, release what it holds, send nothing more. */
  end(): void;
}

/** Builds a session's replay controller (absent: the replay methods answer "not available"). */
export type ReplayPort = (client: ReplayClient, out: ReplayOutput) => SessionReplay;
