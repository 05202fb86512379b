import { WebSocket, type ClientOptions, type RawData } from 'ws';
import { childLogger, type Logger } from '#platform/log.ts';
import { retryDelay, type RetryPolicy } from '#platform/steps/retry-policy.ts';
import type { CounterSeries } from '#platform/metrics/counter-tally.ts';
import { connectionUp, framesOf, readPausesTotal, reconnectsTotal, staleReconnectsTotal } from './metrics.ts';

/** The shared retry policy (platform/steps/retry-policy.ts) plus when a healthy connection resets the attempts. */
export interface ReconnectPolicy extends RetryPolicy {
  /** A connection that stayed up this long resets the attempt counter. Default 60 s. */
  readonly resetAfterMs?: number;
}

export const DEFAULT_RECONNECT: ReconnectPolicy = { baseMs: 500, maxMs: 30_000, resetAfterMs: 60_000 };

/**
 * Heartbeat rules as data.
 * - `app`: send `payload` every `intervalMs` (Bybit `{"op":"ping"}` every 20 s). With `whenIdle`, only when no frame
 *   arrived during the last `intervalMs` (OKX text `ping` when idle < 30 s).
 * - `protocol`: WebSocket ping frame every `intervalMs`; a ping still unanswered at the next beat kills the
 *   connection (it then reconnects).
 * Server protocol pings are answered by `ws` itself.
 */
export type HeartbeatRule =
  | { readonly kind: 'app'; readonly payload: string | (() => string); readonly intervalMs: number; readonly whenIdle?: boolean }
  | { readonly kind: 'protocol'; readonly intervalMs: number };

export type SocketEvent =
  | { readonly type: 'connecting'; readonly attempt: number; readonly replacing: boolean }
  | { readonly type: 'open'; readonly attempt: number; readonly replacing: boolean }
  | { readonly type: 'close'; readonly code: number; readonly reason: string; readonly reconnectInMs: number | null }
  | { readonly type: 'stale'; readonly silentMs: number }
  | { readonly type: 'lifetime'; readonly ageMs: number }
  | { readonly type: 'read_paused' }
  | { readonly type: 'read_resumed'; readonly pausedMs: number }
  | { readonly type: 'error'; readonly error: Error };

export type FrameHandler = (frame: string | Buffer, receivedAt: number) => void;

export interface ResilientSocketOptions {
  readonly url: string;
  /** Metric label and log field. */
  readonly venue: string;
  /** Extra log field to tell several connections of one venue apart. */
  readonly name?: string;
  /** Called after every (re)connect; returns the frames to send (subscribe, set_heartbeat, ...). */
  readonly onOpen?: (send: (frame: string) => boolean) => readonly string[] | void;
  readonly onFrame: FrameHandler;
  readonly onEvent?: (event: SocketEvent) => void;
  readonly heartbeat?: HeartbeatRule;
  /** Answer server-initiated heartbeats (Deribit test_request -> public/test). Return null for no reply. */
  readonly replyTo?: (frame: string) => string | null;
  /** No frame for this long -> terminate and reconnect. Default 60 s; 0 disables. */
  readonly staleMs?: number;
  readonly backoff?: ReconnectPolicy;
  /** Proactive reconnect after this connection age (Binance: 24 h). Make-before-break. */
  readonly maxLifetimeMs?: number;
  /** Overlap of old and new connection on a lifetime rotation. Default 1 s. */
  readonly rotateOverlapMs?: number;
  /** Opening handshake timeout. Default 10 s. */
  readonly connectTimeoutMs?: number;
  readonly wsOptions?: ClientOptions;
  /** Injected for deterministic tests; [0, 1). */
  readonly random?: () => number;
}

interface Conn {
  readonly ws: WebSocket;
  readonly timers: NodeJS.Timeout[];
  openedAt: number | null;
  lastFrameAt: number;
  pongPending: boolean;
  /** When the last protocol ping was sent. */
  pingSentAt: number;
  retired: boolean;
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** One logical, self-healing venue stream over a sequence of WebSocket connections. */
export class ResilientSocket {
  readonly #opts: ResilientSocketOptions;
  readonly #log: Logger;
  readonly #backoff: ReconnectPolicy;
  readonly #random: () => number;
  readonly #live = new Set<Conn>();
  /** gex_ingest_frames_total of this venue, counted per frame. */
  readonly #frames: CounterSeries;
  #current: Conn | null = null;
  #attempt = 0;
  #reconnectTimer: NodeJS.Timeout | null = null;
  #rotating = false;
  #started = false;
  #closed = false;
  /** Outstanding holdReading() calls; reading is paused while > 0. */
  #holds = 0;
  #pausedAt = 0;

  constructor(opts: ResilientSocketOptions) {
    this.#opts = opts;
    this.#backoff = opts.backoff ?? DEFAULT_RECONNECT;
    this.#random = opts.random ?? Math.random;
    this.#frames = framesOf(opts.venue);
    this.#log = childLogger('ws').child({ venue: opts.venue, ...(opts.name ? { conn: opts.name } : {}) });
  }

  /** Open the first connection. Idempotent. */
  start(): this {
    if (this.#started || this.#closed) return this;
    this.#started = true;
    this.#connect(false);
    return this;
  }

  get isOpen(): boolean {
    return this.#current?.ws.readyState === WebSocket.OPEN;
  }

  /** Send on the current connection; false when it is not open (the frame is dropped, not queued). */
  send(frame: string): boolean {
    const c = this.#current;
    if (!c || c.ws.readyState !== WebSocket.OPEN) return false;
    c.ws.send(frame);
    return true;
  }

  /** True while a holdReading() is outstanding: the socket is not read (the venue's data waits in TCP buffers). */
  get readingPaused(): boolean {
    return this.#holds > 0;
  }

  /**
   * Backpressure: stop reading the socket until `until` settles (the publisher's high-water-mark promise). Frames
   * already received are still delivered; nothing more is read, so the venue's data waits in the TCP buffers
   * (ours, then the venue's) instead of in this process. Overlapping holds resume after the last one settles.
   * While paused, stale detection and the protocol-ping deadline are suspended (silence is ours, not the
   * venue's); a connection opened meanwhile subscribes, then pauses too.
   */
  holdReading(until: Promise<unknown>): void {
    if (this.#closed) return;
    if (this.#holds++ === 0) {
      this.#pausedAt = Date.now();
      readPausesTotal.inc({ venue: this.#opts.venue });
      for (const c of this.#live) c.ws.pause();
      this.#emit({ type: 'read_paused' });
    }
    const release = (): void => {
      if (--this.#holds === 0) this.#resumeReading();
    };
    until.then(release, release);
  }

  #resumeReading(): void {
    if (this.#closed) return;
    const now = Date.now();
    for (const c of this.#live) {
      c.lastFrameAt = now;
      c.pongPending = false;
      c.ws.resume();
    }
    this.#emit({ type: 'read_resumed', pausedMs: now - this.#pausedAt });
  }

  /** Stop for good: no more reconnects, timers cleared, connections closed (terminated after 1 s). */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#reconnectTimer) clearTimeout(this.#reconnectTimer);
    this.#reconnectTimer = null;
    const waits = [...this.#live].map((c) => this.#shut(c, 1000, 'client close'));
    this.#current = null;
    await Promise.all(waits);
  }

  #emit(event: SocketEvent): void {
    try {
      this.#opts.onEvent?.(event);
    } catch (err) {
      this.#log.error({ err }, 'onEvent handler threw');
    }
  }

  #shut(c: Conn, code: number, reason: string): Promise<void> {
    c.retired = true;
    for (const t of c.timers) clearTimeout(t);
    if (c.ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      const kill = setTimeout(() => c.ws.terminate(), 1000);
      c.ws.once('close', () => {
        clearTimeout(kill);
        resolve();
      });
      if (c.ws.readyState === WebSocket.CONNECTING) c.ws.terminate();
      else c.ws.close(code, reason);
    });
  }

  #connect(replacing: boolean): void {
    if (this.#closed) return;
    const attempt = this.#attempt;
    this.#emit({ type: 'connecting', attempt, replacing });
    const ws = new WebSocket(this.#opts.url, { handshakeTimeout: this.#opts.connectTimeoutMs ?? 10_000, ...this.#opts.wsOptions });
    const c: Conn = { ws, timers: [], openedAt: null, lastFrameAt: Date.now(), pongPending: false, pingSentAt: 0, retired: false };
    this.#live.add(c);
    if (!replacing) this.#current = c;

    ws.on('open', () => this.#onOpen(c, attempt, replacing));
    ws.on('message', (data, isBinary) => this.#onMessage(c, data, isBinary));
    ws.on('pong', () => {
      c.pongPending = false;
    });
    // A server protocol ping proves the connection is alive (ws answers it itself), so it counts against
    // stale detection like a frame: quiet but healthy feeds (Binance options, Derive) are not torn down.
    ws.on('ping', () => {
      c.lastFrameAt = Date.now();
    });
    ws.on('error', (error) => {
      this.#log.warn({ err: error.message }, 'websocket error');
      this.#emit({ type: 'error', error });
    });
    ws.on('close', (code, reasonBuf) => this.#onClose(c, code, reasonBuf.toString(), replacing));
  }

  #onOpen(c: Conn, attempt: number, replacing: boolean): void {
    if (this.#closed || c.retired) {
      c.ws.terminate();
      return;
    }
    const now = Date.now();
    c.openedAt = now;
    c.lastFrameAt = now;
    connectionUp.inc({ venue: this.#opts.venue });
    if (replacing) {
      if (this.#reconnectTimer) clearTimeout(this.#reconnectTimer);
      this.#reconnectTimer = null;
      const old = this.#current;
      this.#current = c;
      this.#rotating = false;
      if (old) c.timers.push(setTimeout(() => void this.#shut(old, 1000, 'rotated'), this.#opts.rotateOverlapMs ?? 1000));
    }
    this.#log.info({ attempt, replacing }, 'connected');
    this.#emit({ type: 'open', attempt, replacing });
    this.#startTimers(c);
    if (this.#holds > 0) c.ws.pause();
    const send = (frame: string): boolean => {
      if (c.ws.readyState !== WebSocket.OPEN) return false;
      c.ws.send(frame);
      return true;
    };
    try {
      const frames = this.#opts.onOpen?.(send);
      if (frames) for (const f of frames) send(f);
    } catch (err) {
      this.#log.error({ err }, 'onOpen hook threw');
    }
  }

  #startTimers(c: Conn): void {
    const o = this.#opts;
    const hb = o.heartbeat;
    if (hb) {
      const beat = (): void => {
        if (c.ws.readyState !== WebSocket.OPEN) return;
        if (hb.kind === 'protocol') {
          // While reading is paused the pong cannot be read: keep pinging (venues that require client pings, such
          // as Thalex, would close the connection), but do not judge the missing pong. A frame read since the ping
          // proves the connection alive too: its pong waits behind the frames sent before it (a backlog after a
          // pause, a burst faster than this thread reads), which are read first.
          if (c.pongPending && this.#holds === 0 && c.lastFrameAt <= c.pingSentAt) {
            this.#log.warn('no pong to protocol ping; terminating');
            c.ws.terminate();
            return;
          }
          c.pongPending = true;
          c.pingSentAt = Date.now();
          c.ws.ping();
        } else if (!hb.whenIdle || Date.now() - c.lastFrameAt >= hb.intervalMs) {
          c.ws.send(typeof hb.payload === 'string' ? hb.payload : hb.payload());
        }
      };
      c.timers.push(setInterval(beat, hb.intervalMs));
    }
    const staleMs = o.staleMs ?? 60_000;
    if (staleMs > 0) {
      const every = Math.max(10, Math.min(1000, Math.floor(staleMs / 4)));
      let lastCheck = Date.now();
      c.timers.push(
        setInterval(() => {
          const now = Date.now();
          const late = now - lastCheck - every;
          lastCheck = now;
          // A check that runs late means the event loop itself was stalled (GC, a long synchronous task, CPU
          // starvation): frames may be waiting unread in the socket, and timers run before I/O polling. Judge
          // staleness at the next check, after they were read, instead of killing a live feed and losing them.
          if (late > Math.max(every, 100) || this.#holds > 0) return;
          const silent = now - c.lastFrameAt;
          if (silent <= staleMs || c.retired || c.ws.readyState !== WebSocket.OPEN) return;
          this.#log.warn({ silentMs: silent }, 'stale feed; reconnecting');
          staleReconnectsTotal.inc({ venue: o.venue });
          this.#emit({ type: 'stale', silentMs: silent });
          c.ws.terminate();
        }, every),
      );
    }
    if (o.maxLifetimeMs && o.maxLifetimeMs > 0) {
      c.timers.push(
        setTimeout(() => {
          if (c !== this.#current || this.#closed) return;
          this.#emit({ type: 'lifetime', ageMs: Date.now() - (c.openedAt ?? Date.now()) });
          this.#rotate();
        }, o.maxLifetimeMs),
      );
    }
  }

  #rotate(): void {
    if (this.#rotating || this.#closed) return;
    this.#rotating = true;
    this.#log.info('max lifetime reached; rotating connection');
    this.#connect(true);
  }

  #onMessage(c: Conn, data: RawData, isBinary: boolean): void {
    const receivedAt = Date.now();
    c.lastFrameAt = receivedAt;
    this.#frames.inc();
    const frame = isBinary ? toBuffer(data) : toBuffer(data).toString('utf8');
    if (typeof frame === 'string' && this.#opts.replyTo) {
      const reply = this.#opts.replyTo(frame);
      if (reply !== null && c.ws.readyState === WebSocket.OPEN) c.ws.send(reply);
    }
    try {
      this.#opts.onFrame(frame, receivedAt);
    } catch (err) {
      this.#log.error({ err }, 'onFrame handler threw');
    }
  }

  #onClose(c: Conn, code: number, reason: string, replacing: boolean): void {
    for (const t of c.timers) clearTimeout(t);
    this.#live.delete(c);
    const wasOpen = c.openedAt !== null;
    if (wasOpen) connectionUp.dec({ venue: this.#opts.venue });
    if (this.#closed || c.retired) {
      this.#emit({ type: 'close', code, reason, reconnectInMs: null });
      return;
    }
    if (c !== this.#current) {
      // A rotation attempt that never became current.
      if (!(replacing && this.#rotating)) return;
      this.#rotating = false;
      const old = this.#current;
      if (old) {
        // Keep the old connection and try again later.
        const delay = retryDelay(this.#attempt++, this.#backoff, this.#random);
        old.timers.push(setTimeout(() => this.#rotate(), delay));
        return;
      }
      // The old connection died meanwhile too: fall through to the normal reconnect loop.
    } else if (this.#rotating) {
      // The current connection dropped while its replacement is connecting: the replacement takes over.
      this.#current = null;
      this.#emit({ type: 'close', code, reason, reconnectInMs: null });
      return;
    }
    const resetAfter = this.#backoff.resetAfterMs ?? 60_000;
    if (c.openedAt !== null && Date.now() - c.openedAt >= resetAfter) this.#attempt = 0;
    const delay = retryDelay(this.#attempt, this.#backoff, this.#random);
    this.#attempt++;
    this.#current = null;
    reconnectsTotal.inc({ venue: this.#opts.venue });
    this.#log.warn({ code, reason, reconnectInMs: delay, attempt: this.#attempt }, 'disconnected; reconnecting');
    this.#emit({ type: 'close', code, reason, reconnectInMs: delay });
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = null;
      this.#connect(false);
    }, delay);
  }
}
