/**
 * The replay methods of a WebSocket session (plugged into the feed as its ReplayPort):
 * - `public/replay` {channels, from, to, speed}: at most one replay per connection and REPLAY_CAPS[level] per user
 *   (shared with GET /v2/replay); the window is clamped to the plan's history window as `as_of` reads are; answered
 *   with {replay_id, channels, from, to, speed[, history_clamp]} before the first `replay` notification;
 * - `public/replay_pause`, `public/replay_resume`, `public/replay_stop`: answered with {replay_id, state, sent}; a
 *   stopped replay still ends with its `replay_done` notification (status "stopped").
 */
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { clampWindow } from '../limits/history-clamp.ts';
import type { ConnectionCap } from '../ws/connection-cap.ts';
import { result, rpcError, RPC_ERROR, type RpcRequest } from '../ws/protocol.ts';
import type { ReplayClient, ReplayOutput, ReplayPort, SessionReplay } from '../ws/replay-port.ts';
import { REPLAY_CAPS } from './caps.ts';
import { replayMetrics } from './metrics.ts';
import type { ReplayProducer } from './producer.ts';
import { REPLAY_PAGE } from './sources.ts';
import { ReplayRun } from './ws-replay-run.ts';
import { parseWsReplay } from './ws-params.ts';

export interface WsReplayDeps {
  /** Where the replays' batches are made (the replay thread, or this thread). */
  readonly producer: ReplayProducer;
  /** Concurrent replays per user (scope `replay`), shared with GET /v2/replay. */
  readonly cap: ConnectionCap;
  readonly clock: () => number;
  readonly log: FastifyBaseLogger;
  /** Tests: a shorter stall bound, smaller store pages. */
  readonly stallMs?: number;
  readonly page?: number;
}

class SessionReplayMethods implements SessionReplay {
  private run: { readonly id: string; readonly replay: ReplayRun } | null = null;
  private starting = false;
  private ended = false;

  constructor(
    private readonly deps: WsReplayDeps,
    private readonly client: ReplayClient,
    private readonly out: ReplayOutput,
  ) {}

  handle(req: RpcRequest): void {
    if (req.method === 'public/replay') {
      this.start(req).catch((err: unknown) => {
        this.deps.log.error({ err }, 'replay failed to start');
        this.out.reply(rpcError(req.id, RPC_ERROR.invalidRequest, 'replay could not start'));
      });
      return;
    }
    const run = this.run;
    if (run === null) return this.out.reply(rpcError(req.id, RPC_ERROR.noReplay, 'no replay running on this connection'));
    if (req.method === 'public/replay_pause') run.replay.pause();
    else if (req.method === 'public/replay_resume') run.replay.resume();
    else if (req.method === 'public/replay_stop') run.replay.stop();
    const state = req.method === 'public/replay_stop' ? 'stopping' : run.replay.paused ? 'paused' : 'running';
    this.out.reply(result(req.id, { replay_id: run.id, state, sent: run.replay.sent() }));
  }

  end(): void {
    this.ended = true;
    const run = this.run;
    if (run === null) return;
    run.replay.end();
    // It sends nothing more: it stops counting now, not once its store read in flight returns.
    this.deps.cap.release(run.id);
  }

  private async start(req: RpcRequest): Promise<void> {
    if (this.run !== null || this.starting)
      return this.out.reply(rpcError(req.id, RPC_ERROR.replayRunning, 'a replay is already running on this connection (one at a time)'));
    const parsed = parseWsReplay(req.params, this.deps.clock());
    if (!parsed.ok) return this.out.reply(rpcError(req.id, RPC_ERROR.invalidParams, 'invalid replay params', { errors: parsed.problems }));
    const id = randomUUID();
    const { level, userId } = this.client;
    this.starting = true;
    const admission = await this.deps.cap.acquire(userId, id, REPLAY_CAPS[level]).finally(() => (this.starting = false));
    if (!admission.allowed) {
      replayMetrics.ended.inc({ transport: 'ws', status: 'refused' });
      const message = `concurrent replay limit reached (${admission.limit} for level ${level}${admission.fallback ? ', per-machine fallback' : ''})`;
      return this.out.reply(rpcError(req.id, RPC_ERROR.replayCap, message, { limit: admission.limit, count: admission.count }));
    }
    if (this.ended) return this.deps.cap.release(id);
    const policy = { historyDays: this.client.historyDays, enforced: this.client.evaluation, now: this.deps.clock() };
    const clamp = clampWindow({ from: parsed.request.fromMs, to: parsed.request.toMs }, policy);
    const request = { ...parsed.request, fromMs: clamp.served.from, toMs: clamp.served.to };
    this.out.reply(
      result(req.id, {
        replay_id: id,
        channels: request.channels.map((c) => c.name),
        from: new Date(request.fromMs).toISOString(),
        to: new Date(request.toMs).toISOString(),
        speed: parsed.speed,
        ...(clamp.clamp !== null ? { history_clamp: clamp.clamp } : {}),
      }),
    );
    replayMetrics.active.inc({ transport: 'ws' });
    const replay = new ReplayRun({
      id,
      request,
      speed: parsed.speed,
      clamp: clamp.clamp,
      batches: this.deps.producer.batches(request, 'ws', this.deps.page ?? REPLAY_PAGE),
      out: this.out,
      log: this.deps.log,
      ...(this.deps.stallMs !== undefined ? { stallMs: this.deps.stallMs } : {}),
    });
    this.run = { id, replay };
    void replay.finished.then(() => {
      this.deps.cap.release(id); // once (a release after end() does nothing)
      replayMetrics.active.dec({ transport: 'ws' });
      if (this.run?.id === id) this.run = null;
    });
  }
}

/** The feed's replay port over a replay producer. */
export const wsReplayPort =
  (deps: WsReplayDeps): ReplayPort =>
  (client, out) =>
    new SessionReplayMethods(deps, client, out);
