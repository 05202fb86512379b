/**
 * One WebSocket replay: pulls the replay's batches of `replay` notifications (batch.ts: each a complete WebSocket
 * frame, made by the replay producer) and writes them through the session's bounded output, then a `replay_done`
 * notification.
 * - speed "max": paced by the client's consumption. A batch (~64 KiB) is written, in one socket write, only when the
 *   socket's send buffer has room under REPLAY_HIGH_WATER (once above it, when it is down to REPLAY_LOW_WATER), and
 *   the next batch is made only when the previous one is taken, so the window is never buffered in memory. A client
 *   that does not take the difference within `stallMs` is closed with 4009.
 * - speed x: a message is written once (at - from) / x of wall time has passed since the start, pauses excluded (and
 *   never before the buffer has room).
 * - pause, resume and stop act between two writes (a batch at speed max, a message otherwise); the end of the
 *   session stops the replay without a done message.
 * The loop writes within the replays' share of each event-loop turn (caps.ts REPLAY_TURNS), so live notifications and
 * other sessions go on; with the replay thread (the default) the batches are made there, and this loop only writes. */
import type { FastifyBaseLogger } from 'fastify';
import type { HistoryClamp } from '../limits/history-clamp.ts';
import type { ReplayOutput } from '../ws/replay-port.ts';
import { REPLAY_HIGH_WATER, REPLAY_LOW_WATER, REPLAY_STALL_MS, REPLAY_TURNS, type ReplaySpeed } from './caps.ts';
import { startOf, type ReplayBatch } from './batch.ts';
import { doneFields } from './lines.ts';
import { replayMetrics } from './metrics.ts';
import type { ReplayRequest } from './request.ts';

const POLL_MS = 2;
/** Longest single sleep: pause, resume and stop wake it at once anyway. */
const MAX_SLEEP_MS = 1_000;

export type ReplayStatus = 'completed' | 'stopped' | 'failed';

export interface ReplayRunOptions {
  readonly id: string;
  readonly request: ReplayRequest;
  readonly speed: ReplaySpeed;
  readonly clamp: HistoryClamp | null;
  /** The replay's `ws` batches (producer.ts). */
  readonly batches: AsyncGenerator<ReplayBatch>;
  readonly out: ReplayOutput;
  readonly log: FastifyBaseLogger;
  readonly stallMs?: number;
}

export class ReplayRun {
  readonly counts: Map<string, number>;
  /** Settles with the status once the replay is over (never rejects). */
  readonly finished: Promise<ReplayStatus>;
  private pausedSince: number | null = null;
  private pausedMs = 0;
  private stopping = false;
  private sessionEnded = false;
  private wake: (() => void) | null = null;
  private lastAtMs: number | null = null;
  /** Messages sent and not yet added to replayMetrics.messages (added once a batch). */
  private unmetered = 0;
  /** The batch being sent and the index of its last message sent. */
  private sentInBatch: ReplayBatch | null = null;
  private sentIndex = -1;

  constructor(private readonly opts: ReplayRunOptions) {
    this.counts = new Map(opts.request.channels.map((c) => [c.name, 0]));
    this.finished = this.run();
  }

  get paused(): boolean {
    return this.pausedSince !== null;
  }

  /** Messages sent so far. */
  sent(): number {
    let n = 0;
    for (const c of this.counts.values()) n += c;
    return n;
  }

  pause(): void {
    if (this.pausedSince === null) this.pausedSince = performance.now();
  }

  resume(): void {
    if (this.pausedSince === null) return;
    this.pausedMs += performance.now() - this.pausedSince;
    this.pausedSince = null;
    this.kick();
  }

  stop(): void {
    this.stopping = true;
    this.kick();
  }

  /** The session ended: stop and send nothing more. */
  end(): void {
    this.sessionEnded = true;
    this.stop();
  }

  private kick(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.wake = null;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(t);
        resolve();
      };
    });
  }

  /** Waits while paused; true when the replay is to stop. */
  private async held(): Promise<boolean> {
    while (this.pausedSince !== null && !this.stopping) await this.sleep(MAX_SLEEP_MS);
    return this.stopping;
  }

  /** Waits until `dueMs` (performance.now() scale, pauses excluded); true when the replay is to stop. */
  private async until(dueMs: number): Promise<boolean> {
    for (;;) {
      if (await this.held()) return true;
      const left = dueMs + this.pausedMs - performance.now();
      if (left <= 0) return false;
      await this.sleep(Math.min(left, MAX_SLEEP_MS));
    }
  }

  /**
   * Waits for room for `bytes` in the send buffer: once the buffer is above the high-water mark, until it is down to
   * the low-water mark (a stream's hysteresis). True when the replay is to stop: stopped, or the client did not take
   * the difference within `stallMs` (then the session is closed with 4009).
   */
  private async room(bytes: number): Promise<boolean> {
    const { out } = this.opts;
    const level = out.bufferedAmount();
    if (level === 0 || level + bytes <= REPLAY_HIGH_WATER) return this.stopping;
    const stallMs = this.opts.stallMs ?? REPLAY_STALL_MS;
    let since = performance.now();
    while (out.bufferedAmount() > REPLAY_LOW_WATER) {
      if (this.pausedSince !== null) {
        if (await this.held()) return true;
        since = performance.now();
      }
      if (this.stopping) return true;
      if (performance.now() - since > stallMs) {
        out.cutOff(`replay not read for ${stallMs / 1000} s`);
        return true;
      }
      await this.sleep(POLL_MS);
    }
    return this.stopping;
  }

  private async loop(): Promise<'completed' | 'stopped'> {
    const { batches, speed, out, request } = this.opts;
    const names = request.channels.map((c) => c.name);
    const start = performance.now();
    for (;;) {
      if (await this.held()) return 'stopped';
      const r = await batches.next();
      if (r.done === true) return 'completed';
      const b = r.value;
      if (speed === 'max') {
        // The batch's frames in one write, once the send buffer has room for them.
        if (await this.room(b.text.length)) return 'stopped';
        if (!out.deliverFrames(b.text)) return 'stopped';
        this.sentUpTo(b, names, b.count - 1);
        await REPLAY_TURNS.pass(this, b.text.length);
        continue;
      }
      for (let i = 0; i < b.count; i++) {
        if (await this.until(start + ((b.atMs[i] as number) - request.fromMs) / speed)) return 'stopped';
        const frame = b.text.slice(startOf(b, i), b.ends[i]);
        if (await this.room(frame.length)) return 'stopped';
        if (!out.deliverFrames(frame)) return 'stopped';
        this.sentUpTo(b, names, i);
        await REPLAY_TURNS.pass(this, frame.length);
      }
    }
  }

  /** Counts the messages of `b` up to `last` as sent (each channel's count is its last message's seq). */
  private sentUpTo(b: ReplayBatch, names: readonly string[], last: number): void {
    const from = this.sentInBatch === b ? this.sentIndex + 1 : 0;
    for (let i = from; i <= last; i++) this.counts.set(names[b.channel[i] as number] as string, b.seq[i] as number);
    this.unmetered += last - from + 1;
    this.lastAtMs = b.atMs[last] as number;
    this.sentInBatch = b;
    this.sentIndex = last;
    if (last === b.count - 1) this.meter();
  }

  private meter(): void {
    if (this.unmetered > 0) replayMetrics.messages.inc({ transport: 'ws' }, this.unmetered);
    this.unmetered = 0;
  }

  private async run(): Promise<ReplayStatus> {
    let status: ReplayStatus;
    let error: { code: string; message: string; resume_from: string } | null = null;
    try {
      status = await this.loop();
    } catch (err) {
      status = 'failed';
      this.opts.log.warn({ err, replay: this.opts.id }, 'replay failed');
      error = {
        code: 'UPSTREAM_ERROR',
        message: 'the store could not be read; replay again from resume_from (messages at that instant are sent again)',
        resume_from: new Date(this.lastAtMs ?? this.opts.request.fromMs).toISOString(),
      };
    }
    this.meter();
    await this.opts.batches.return(undefined).catch(() => undefined);
    replayMetrics.ended.inc({ transport: 'ws', status });
    if (!this.sessionEnded) this.opts.out.deliver(Buffer.from(this.doneNotification(status, error), 'utf8'));
    return status;
  }

  private doneNotification(status: ReplayStatus, error: Readonly<Record<string, string>> | null): string {
    const { id, request, clamp } = this.opts;
    const params = {
      replay_id: id,
      status,
      ...doneFields(request.fromMs, request.toMs, this.counts, clamp ?? undefined),
      ...(error !== null ? { error } : {}),
    };
    return JSON.stringify({ jsonrpc: '2.0', method: 'replay_done', params });
  }
}
