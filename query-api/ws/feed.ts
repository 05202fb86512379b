/**
 * The WebSocket feed on the API's port: `GET /v2/ws` upgrades (any other upgrade path is refused), sessions
 * fed from the bus, closed with 1001 "going away" when the app closes.
 */
import type { Duplex } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { WebSocketServer } from 'ws';
import type { Bus } from '#bus/types.ts';
import type { SnapshotCache } from '../gex/snapshot-cache.ts';
import type { RedisCounter } from '../limits/redis-counter.ts';
import type { ApiInstance } from '../types.ts';
import { startBusSource, type BusSource } from './bus-source.ts';
import { ConnectionCap } from './connection-cap.ts';
import { openSession } from './handshake.ts';
import { ChainFeed } from './chain-feed.ts';
import { FeedHub } from './hub.ts';
import { CLOSE } from './protocol.ts';
import type { ReplayPort } from './replay-port.ts';
import { DEFAULT_HEARTBEAT_MS, DEFAULT_MAX_BUFFERED_BYTES, type Session } from './session.ts';

export const WS_PATH = '/v2/ws';

export interface WsFeedOptions {
  readonly bus: Bus;
  readonly snapshots: SnapshotCache;
  /** Shared counters of the rate limiter (REDIS_URL): the connection cap uses the same Redis. */
  readonly redis?: RedisCounter;
  /** Server heartbeat period. Default 15 s. */
  readonly heartbeatMs?: number;
  /** Time for the `public/auth` first frame when the upgrade carries no key. Default 5 s. */
  readonly authTimeoutMs?: number;
  /** Send buffer bound per connection (bytes); above it the session is closed with 4009. Default 4 MiB. */
  readonly maxBufferedBytes?: number;
  /** Age bound (ms) of a trade waiting for its fan-out; older ones are dropped and marked (ws/trade-backlog.ts). Default 2 s. */
  readonly maxTradeAgeMs?: number;
  /** The replay methods (query-api/replay/ws-replay.ts); absent: `public/replay` answers "not available". */
  readonly replay?: ReplayPort;
}

export interface WsFeed {
  readonly hub: FeedHub;
  /** The bus consumers and the trade backlog in front of the hub. */
  readonly source: BusSource;
  readonly sessions: ReadonlySet<Session>;
  close(): Promise<void>;
}

/** Attaches /v2/ws to the app's HTTP server; the app's preClose hook closes it. */
export async function attachWsFeed(app: ApiInstance, opts: WsFeedOptions): Promise<WsFeed> {
  const { config, accounts, store, clock } = app.gex;
  const hub = new FeedHub();
  const chains = new ChainFeed(hub, store, clock);
  const sessions = new Set<Session>();
  const cap = new ConnectionCap({
    ...(opts.redis !== undefined ? { redis: opts.redis } : {}),
    keyPrefix: config.redisKeyPrefix,
    fallbackFactor: config.rateLimitFallbackFactor,
    log: app.log,
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  const deps = {
    accounts,
    config,
    cap,
    hub,
    sessions,
    authTimeoutMs: opts.authTimeoutMs ?? 5_000,
    heartbeatMs: opts.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
    maxBufferedBytes: opts.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES,
    ...(opts.replay !== undefined ? { replay: opts.replay } : {}),
  };
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== WS_PATH) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      openSession(deps, ws, req.headers['x-api-key'], socket).catch((err: unknown) => {
        app.log.error({ err }, 'websocket session failed to open');
        ws.close(1011, 'internal error');
      });
    });
  };
  app.server.on('upgrade', onUpgrade);
  const source: BusSource = await startBusSource(opts.bus, hub, opts.snapshots, {
    chains,
    ...(opts.maxTradeAgeMs !== undefined ? { maxTradeAgeMs: opts.maxTradeAgeMs } : {}),
  });
  let closing: Promise<void> | null = null;
  const feed: WsFeed = {
    hub,
    source,
    sessions,
    close() {
      closing ??= (async () => {
        app.server.off('upgrade', onUpgrade);
        await source.stop();
        chains.close();
        const open = [...wss.clients];
        for (const s of [...sessions]) s.close(CLOSE.goingAway.code, CLOSE.goingAway.reason);
        for (const ws of open) if (ws.readyState === ws.OPEN) ws.close(CLOSE.goingAway.code, CLOSE.goingAway.reason);
        await Promise.all(
          open.map((ws) =>
            ws.readyState === ws.CLOSED
              ? undefined
              : new Promise<void>((resolve) => {
                  const t = setTimeout(() => {
                    ws.terminate();
                    resolve();
                  }, 2_000);
                  ws.once('close', () => {
                    clearTimeout(t);
                    resolve();
                  });
                }),
          ),
        );
        cap.close();
        await new Promise<void>((resolve) => wss.close(() => resolve()));
      })();
      return closing;
    },
  };
  app.addHook('preClose', async () => feed.close());
  return feed;
}
