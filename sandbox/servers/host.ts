import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, WebSocket } from 'ws';
import { childLogger, type Logger } from '#platform/log.ts';
import type { SandboxVenue } from '../market/venues.ts';
import type { MarketEvent } from '#schemas/events.ts';
import type { MalformedKind, VenueServer, VenueUrls } from './types.ts';

/** One connected client of a sandbox venue server. */
export interface Client {
  readonly id: string;
  readonly ws: WebSocket;
  /** Request path (without query) and parsed query. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly connectedAt: number;
  /** Channel keys the client subscribed to (venue-defined spelling). */
  readonly subs: Set<string>;
  /** Per-client protocol state (heartbeat timers, snapshot flags, ...). */
  readonly state: Map<string, unknown>;
  readonly timers: NodeJS.Timeout[];
  /** The client's TCP socket: corked while a burst of frames is written (one write per burst, see send). */
  readonly socket: Duplex;
}

export interface RestReply {
  readonly status: number;
  readonly body: unknown;
}

/** Method and body of a REST request (POST listings read the body). */
export interface RestCall {
  readonly method: string;
  readonly body: string;
}

export interface HostHandlers {
  /** Whether a WebSocket upgrade to `path` is accepted (`query` e.g. for Paradex's SBE negotiation). */
  readonly wsPaths: (path: string, query: URLSearchParams) => boolean;
  readonly rest: (path: string, query: URLSearchParams, call: RestCall) => RestReply | null;
  readonly onConnect?: (c: Client) => void;
  readonly onMessage: (c: Client, text: string) => void;
  readonly onClose?: (c: Client) => void;
}

/**
 * HTTP + WebSocket host of one sandbox venue on 127.0.0.1: REST routing, WS upgrade routing by path, the client
 * registry with subscriptions, and the transport faults (silence, disconnect).
 */
export class VenueHost {
  readonly venue: string;
  readonly clients = new Set<Client>();
  readonly log: Logger;
  readonly #server: Server;
  readonly #wss: WebSocketServer;
  readonly #h: HostHandlers;
  #silentUntil = 0;
  /** Frames held back by hold(), written by release(). */
  #held: { readonly c: Client; readonly frame: string | Buffer; readonly binary: boolean }[] | null = null;
  #seq = 0;
  /** Frames written to sockets. */
  framesOut = 0;

  constructor(venue: string, handlers: HostHandlers) {
    this.venue = venue;
    this.#h = handlers;
    this.log = childLogger('sandbox').child({ venue });
    this.#server = createServer((req, res) => this.#onHttp(req, res));
    this.#wss = new WebSocketServer({ noServer: true });
    this.#server.on('upgrade', (req, socket, head) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (!this.#h.wsPaths(url.pathname, url.searchParams)) {
        socket.end('HTTP/1.1 404 Not Found\r\n\r\n');
        return;
      }
      this.#wss.handleUpgrade(req, socket, head, (ws) => this.#onWs(ws, url, socket));
    });
  }

  async listen(port: number, host = '127.0.0.1'): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, host, () => resolve());
    });
    return (this.#server.address() as AddressInfo).port;
  }

  get silent(): boolean {
    return Date.now() < this.#silentUntil;
  }

  /** Drop every outbound frame (data, acks, pongs, heartbeats) for ms. */
  silence(ms: number): void {
    this.#silentUntil = Date.now() + ms;
  }

  /**
   * Send one frame (text, or binary for a Buffer) unless silenced or the socket is not open. The frames written
   * in one turn of the event loop leave in one socket write (cork now, uncork on the next tick), as a busy venue
   * packs many frames into a TCP segment; one syscall per frame would make the sandbox, not the pipeline, the
   * bottleneck of the load benchmarks.
   */
  send(c: Client, frame: string | Buffer, binary = typeof frame !== 'string'): boolean {
    if (this.silent || c.ws.readyState !== WebSocket.OPEN) return false;
    if (this.#held !== null) this.#held.push({ c, frame, binary });
    else this.#write(c, frame, binary);
    this.framesOut++;
    return true;
  }

  /**
   * Hold outbound frames instead of writing them (a load generator prepares its frames before the timed window,
   * as autocannon pre-builds its requests); `release` writes them in order.
   */
  hold(): void {
    this.#held ??= [];
  }

  /**
   * Write every held frame, in order, to the clients still connected, and stop holding. Written in chunks of
   * `chunk` frames, yielding between chunks and waiting for a socket's buffer to drain above 8 MB. Returns
   * the number of frames written.
   */
  async release(chunk = 1000): Promise<number> {
    const held = this.#held ?? [];
    this.#held = null;
    let written = 0;
    for (let i = 0; i < held.length; i += chunk) {
      for (const h of held.slice(i, i + chunk)) {
        if (h.c.ws.readyState !== WebSocket.OPEN) continue;
        this.#write(h.c, h.frame, h.binary);
        written++;
      }
      for (const c of this.clients) {
        if (c.socket.writableLength > 8 * 1024 * 1024) await new Promise<void>((r) => c.socket.once('drain', () => r()));
      }
      await new Promise<void>((r) => setImmediate(r));
    }
    return written;
  }

  #write(c: Client, frame: string | Buffer, binary: boolean): void {
    if (c.socket.writableCorked === 0) {
      c.socket.cork();
      process.nextTick(uncork, c.socket);
    }
    c.ws.send(frame, { binary });
  }

  /** Send a frame to every client subscribed to `key`; returns how many got it. */
  broadcast(key: string, frame: string | Buffer | (() => string | Buffer)): number {
    let n = 0;
    let text: string | Buffer | null = null;
    let binary = false;
    for (const c of this.clients) {
      if (!c.subs.has(key)) continue;
      if (text === null) {
        const f = typeof frame === 'function' ? frame() : frame;
        binary = typeof f !== 'string';
        text = typeof f === 'string' ? Buffer.from(f) : f; // encoded once for every subscriber
      }
      if (this.send(c, text, binary)) n++;
    }
    return n;
  }

  /** Abruptly drop every connection (no close frame). */
  disconnectAll(): number {
    const n = this.clients.size;
    for (const c of this.clients) c.ws.terminate();
    return n;
  }

  /** Send a raw frame to every client, bypassing subscriptions (malformed-frame fault). */
  sendAll(frame: string | Buffer): number {
    let n = 0;
    for (const c of this.clients) if (this.send(c, frame)) n++;
    return n;
  }

  async close(): Promise<void> {
    for (const c of this.clients) {
      for (const t of c.timers) clearTimeout(t);
      c.ws.terminate();
    }
    await new Promise<void>((r) => this.#wss.close(() => r()));
    this.#server.closeAllConnections();
    await new Promise<void>((r) => this.#server.close(() => r()));
  }

  #onWs(ws: WebSocket, url: URL, socket: Duplex): void {
    const c: Client = {
      socket,
      id: `${this.venue}-${++this.#seq}-${Date.now().toString(36)}`,
      ws,
      path: url.pathname,
      query: url.searchParams,
      connectedAt: Date.now(),
      subs: new Set(),
      state: new Map(),
      timers: [],
    };
    this.clients.add(c);
    ws.on('message', (data) => {
      try {
        this.#h.onMessage(c, data.toString());
      } catch (err) {
        this.log.error({ err }, 'message handler threw');
      }
    });
    ws.on('error', () => undefined);
    ws.on('close', () => {
      for (const t of c.timers) clearTimeout(t);
      this.clients.delete(c);
      this.#h.onClose?.(c);
    });
    this.#h.onConnect?.(c);
  }

  #onHttp(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => this.#reply(req, res, Buffer.concat(chunks).toString('utf8')));
  }

  #reply(req: IncomingMessage, res: ServerResponse, body: string): void {
    const url = new URL(req.url ?? '/', 'http://x');
    let reply: RestReply | null;
    try {
      reply = this.#h.rest(url.pathname, url.searchParams, { method: req.method ?? 'GET', body });
    } catch (err) {
      this.log.error({ err }, 'REST handler threw');
      reply = { status: 500, body: { error: String(err) } };
    }
    const r = reply ?? { status: 404, body: { error: 'not found', path: url.pathname } };
    res.statusCode = r.status;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(r.body));
  }
}

function uncork(socket: Duplex): void {
  socket.uncork();
}

/** Group items by key, keeping first-seen key order. */
export function groupBy<T>(items: readonly T[], key: (t: T) => string | null): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const it of items) {
    const k = key(it);
    if (k === null) continue;
    let list = m.get(k);
    if (!list) m.set(k, (list = []));
    list.push(it);
  }
  return m;
}

/**
 * Numbers as venues print them in strings, without float noise: `x` rounded to `decimals` places. When the
 * shortest representation of x already has at most `decimals` places (the common case), rounding cannot change
 * it (toFixed lands within 0.5e-decimals of x, which maps back to x), so it is returned as is: toFixed is slow.
 */
export function str(x: number, decimals = 8): string {
  const s = String(x);
  const dot = s.indexOf('.');
  if (!s.includes('e') && (dot < 0 || s.length - dot - 1 <= decimals)) return s;
  return String(Number(x.toFixed(decimals)));
}

/** Size of the `oversized` fault's frame: 2 MiB, twice Kafka's default largest message. */
export const OVERSIZED_FRAME_BYTES = 2 * 1024 * 1024;

/** The `oversized` fault: a text frame of OVERSIZED_FRAME_BYTES that is not JSON (an error page, then padding). */
export function oversizedFrame(notJson: string): string {
  return `${notJson}\n${'x'.repeat(Math.max(0, OVERSIZED_FRAME_BYTES - notJson.length - 1))}`;
}

/** A malformed variant of a valid frame: cut in half, not JSON at all, with corrupted fields, or oversized. */
export function malformedFrame(kind: MalformedKind, good: string, notJson: string, corrupt: (good: string) => string): string {
  if (kind === 'oversized') return oversizedFrame(notJson);
  return kind === 'truncated' ? good.slice(0, Math.floor(good.length / 2)) : kind === 'not_json' ? notJson : corrupt(good);
}

/** The VenueServer face of a venue host: the part every sandbox venue server shares. */
export function venueServer(
  venue: SandboxVenue,
  host: VenueHost,
  urls: VenueUrls,
  publish: (events: readonly MarketEvent[]) => void,
  malformed: (kind: MalformedKind) => number,
): VenueServer {
  return {
    venue,
    urls,
    publish,
    malformed,
    disconnectAll: () => host.disconnectAll(),
    silence: (ms) => host.silence(ms),
    hold: () => host.hold(),
    release: () => host.release(),
    get clientCount() {
      return host.clients.size;
    },
    close: () => host.close(),
  };
}
