/**
 * One authenticated WebSocket session: JSON-RPC requests (subscribe, unsubscribe, ping; the replay methods go to its
 * replay controller, replay-port.ts), bounded writes
 * (a session whose send buffer exceeds `maxBufferedBytes` is closed with 4009 and never written again) and
 * the server heartbeat.
 */
import type { WebSocket } from 'ws';
import { framePayloads } from './frames.ts';
import type { FeedHub, FrameRun, Subscriber } from './hub.ts';
import { wsMetrics } from './metrics.ts';
import { CLOSE, channelList, heartbeat, parseChannel, result, rpcError, RPC_ERROR } from './protocol.ts';
import type { Channel, RpcRequest } from './protocol.ts';
import type { ReplayOutput, SessionReplay } from './replay-port.ts';

export const MAX_SUBSCRIPTIONS = 100;
export const DEFAULT_HEARTBEAT_MS = 15_000;
export const DEFAULT_MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
/** After a 4009 close, a peer that does not read its close frame is dropped after this long. */
const SLOW_CLOSE_GRACE_MS = 5_000;

/**
 * The connection's socket as far as the session uses it: holding writes so several frames leave in one write, and
 * writing frames made elsewhere (replay batches).
 */
export interface Corkable {
  cork(): void;
  uncork(): void;
  /** Writes bytes given one character a byte (replay batches: batch.ts). */
  write(chunk: string, encoding: 'latin1'): boolean;
  /** Writes bytes (the feed's notifications, framed by the hub). */
  write(chunk: Uint8Array): boolean;
}

export interface SessionOptions {
  readonly ws: WebSocket;
  /** The socket `ws` writes to (the upgrade's); absent: every frame goes through `ws`, each its own write. */
  readonly socket?: Corkable;
  readonly hub: FeedHub;
  readonly maxBufferedBytes: number;
  readonly heartbeatMs: number;
  /** Called once when the session ends (any cause). */
  readonly onEnd: () => void;
  /** The session's replay controller (absent: the replay methods are not available). */
  readonly replay?: (out: ReplayOutput) => SessionReplay;
}

export class Session implements Subscriber, ReplayOutput {
  private readonly subscriptions = new Set<string>();
  private closed = false;
  private readonly heartbeatTimer: NodeJS.Timeout;
  private readonly replay: SessionReplay | null;

  constructor(private readonly opts: SessionOptions) {
    this.heartbeatTimer = setInterval(() => this.send(heartbeat(Date.now()), 'heartbeat'), opts.heartbeatMs);
    this.replay = opts.replay?.(this) ?? null;
    opts.ws.once('close', () => this.end());
  }

  bufferedAmount(): number {
    return this.opts.ws.bufferedAmount;
  }

  /** Bounded write of a response or heartbeat; false when the session is closed or was just cut off. */
  send(text: string, kind: string): boolean {
    const frame = Buffer.from(text, 'utf8');
    if (!this.deliver(frame)) return false;
    wsMetrics.messages.inc({ kind });
    wsMetrics.bytes.inc(frame.length);
    return true;
  }

  /**
   * Bounded write of an encoded text frame (the hub's notifications; it counts them): false when the session is
   * closed, or when the frame would take its send buffer over `maxBufferedBytes` (then it is cut off with 4009).
   */
  deliver(frame: Buffer): boolean {
    if (this.closed) return false;
    const ws = this.opts.ws;
    if (ws.readyState !== ws.OPEN) return false;
    if (ws.bufferedAmount + frame.length > this.opts.maxBufferedBytes) {
      this.cutOff(`${this.opts.maxBufferedBytes} bytes`);
      return false;
    }
    ws.send(frame, { binary: false });
    return true;
  }

  /**
   * `deliver` for a run of consecutive frames, written in one go: without an extension, the run's wire bytes (framed
   * once by the hub for every subscriber) in one socket write; otherwise the socket is corked around the `ws.send`
   * calls. The bound is checked once for the run; when it would cross it, frame by frame as `deliver` does (the
   * frames before the crossing are written, then the cut-off). Returns the number of frames written.
   */
  deliverMany(run: FrameRun): number {
    if (this.closed) return 0;
    const { ws, socket } = this.opts;
    if (ws.readyState !== ws.OPEN) return 0;
    const { frames } = run;
    const fits = ws.bufferedAmount + run.bytes <= this.opts.maxBufferedBytes;
    const raw = this.rawSocket();
    if (fits && raw !== null) {
      raw.write(run.wire());
      return frames.length;
    }
    if (frames.length === 1) return this.deliver(frames[0] as Buffer) ? 1 : 0;
    socket?.cork();
    try {
      if (fits) {
        for (const f of frames) ws.send(f, { binary: false });
        return frames.length;
      }
      let n = 0;
      for (const f of frames) {
        if (!this.deliver(f)) break;
        n++;
      }
      return n;
    } finally {
      socket?.uncork();
    }
  }

  /**
   * ReplayOutput.deliverFrames: bounded write of complete WebSocket text frames (ws/frames.ts) as they are, straight to
   * the socket (after whatever `ws` has written: with no extension negotiated `ws` writes every frame at once, queuing
   * none). `frames` are the bytes one character a byte (latin1): the socket copies them out of the string, so no
   * buffer is made on this heap. With an extension, or without the socket, each frame's payload goes through `ws`.
   */
  deliverFrames(frames: string): boolean {
    if (this.closed) return false;
    const { ws } = this.opts;
    if (ws.readyState !== ws.OPEN) return false;
    if (ws.bufferedAmount + frames.length > this.opts.maxBufferedBytes) {
      this.cutOff(`${this.opts.maxBufferedBytes} bytes`);
      return false;
    }
    const raw = this.rawSocket();
    if (raw !== null) {
      raw.write(frames, 'latin1');
      return true;
    }
    for (const payload of framePayloads(Buffer.from(frames, 'latin1'))) ws.send(payload, { binary: false });
    return true;
  }

  /**
   * The socket that takes frames made elsewhere as they are (the hub's runs, replay batches): the upgrade's, when no
   * extension was negotiated (`ws` then writes every frame at once and queues none); otherwise null.
   */
  private rawSocket(): Corkable | null {
    const { ws, socket } = this.opts;
    return socket !== undefined && ws.extensions === '' ? socket : null;
  }

  /** Closes a slow consumer with 4009 (`detail` in the reason); a peer that does not read its close frame is dropped. */
  cutOff(detail: string): void {
    if (this.closed) return;
    wsMetrics.slowDisconnects.inc();
    this.close(CLOSE.slowConsumer.code, `${CLOSE.slowConsumer.reason} (${detail})`);
    const ws = this.opts.ws;
    setTimeout(() => ws.terminate(), SLOW_CLOSE_GRACE_MS).unref();
  }

  reply(text: string): void {
    this.send(text, 'response');
  }

  handle(req: RpcRequest): void {
    switch (req.method) {
      case 'public/subscribe':
        return this.subscribe(req);
      case 'public/unsubscribe':
        return this.unsubscribe(req);
      case 'public/unsubscribe_all': {
        const names = [...this.subscriptions];
        this.opts.hub.remove(this, names);
        this.subscriptions.clear();
        return this.reply(result(req.id, names));
      }
      case 'public/ping':
        return this.reply(result(req.id, 'pong'));
      case 'public/auth':
        return this.reply(rpcError(req.id, RPC_ERROR.invalidRequest, 'already authenticated'));
      case 'public/replay':
      case 'public/replay_pause':
      case 'public/replay_resume':
      case 'public/replay_stop':
        if (this.replay === null) return this.reply(rpcError(req.id, RPC_ERROR.methodNotFound, 'replay is not available on this server'));
        return this.replay.handle(req);
    }
  }

  private subscribe(req: RpcRequest): void {
    const names = channelList(req.params);
    if (names === null)
      return this.reply(rpcError(req.id, RPC_ERROR.invalidParams, 'params.channels must be a non-empty array of channel names'));
    const parsed = names.map((n) => ({ requested: n, channel: parseChannel(n) }));
    const unknown = parsed.filter((p) => p.channel === null).map((p) => p.requested.slice(0, 100));
    if (unknown.length > 0) {
      return this.reply(
        rpcError(
          req.id,
          RPC_ERROR.unknownChannel,
          'unknown channel or symbol; channels: tape.{symbol}, levels.{symbol}[.{venue,...}], chain.{symbol}[.{venue,...}]',
          { channels: unknown },
        ),
      );
    }
    const channels = parsed.map((p) => p.channel as Channel);
    const added = new Set(channels.map((c) => c.name).filter((n) => !this.subscriptions.has(n)));
    if (this.subscriptions.size + added.size > MAX_SUBSCRIPTIONS) {
      return this.reply(rpcError(req.id, RPC_ERROR.tooManySubscriptions, `at most ${MAX_SUBSCRIPTIONS} subscriptions per connection`));
    }
    for (const c of channels) {
      this.opts.hub.subscribe(c, this);
      this.subscriptions.add(c.name);
    }
    this.reply(
      result(
        req.id,
        channels.map((c) => c.name),
      ),
    );
  }

  private unsubscribe(req: RpcRequest): void {
    const names = channelList(req.params);
    if (names === null)
      return this.reply(rpcError(req.id, RPC_ERROR.invalidParams, 'params.channels must be a non-empty array of channel names'));
    const removed: string[] = [];
    for (const n of names) {
      const name = parseChannel(n)?.name ?? n;
      if (this.subscriptions.delete(name)) {
        this.opts.hub.unsubscribe(name, this);
        removed.push(name);
      }
    }
    this.reply(result(req.id, removed));
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    wsMetrics.closes.inc({ code: String(code) });
    this.end();
    this.opts.ws.close(code, reason);
  }

  private end(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeatTimer);
    this.replay?.end();
    this.opts.hub.remove(this, this.subscriptions);
    this.subscriptions.clear();
    this.opts.onEnd();
  }
}
