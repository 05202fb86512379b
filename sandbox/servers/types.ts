import type { MarketEvent } from '#schemas/events.ts';
import type { TradeLedger } from '../market/ledger.ts';
import type { SandboxMarket } from '../market/market.ts';
import type { SandboxVenue } from '../market/venues.ts';

/** `oversized`: an error page padded to OVERSIZED_FRAME_BYTES (no venue message is anywhere near that large). */
export type MalformedKind = 'truncated' | 'not_json' | 'bad_field' | 'oversized';

/** Protocol timings; defaults are the real venues' values, tests shrink them. */
export interface ProtocolTimings {
  /** Deribit: smallest accepted public/set_heartbeat interval, seconds (real: 10). */
  readonly deribitMinHeartbeatSec: number;
  /** Bybit: connection cut after this long without a ping (real: 10 min). */
  readonly bybitIdleMs: number;
  /** OKX: connection closed when no subscription arrives within this long (real: 30 s). */
  readonly okxNoSubscriptionMs: number;
  /** Binance: server ping interval, pong deadline and max connection lifetime (real: 3 min, 10 min, 24 h). */
  readonly binancePingIntervalMs: number;
  readonly binancePongTimeoutMs: number;
  readonly binanceMaxLifetimeMs: number;
  /** Derive: server protocol ping interval (real: ~30 s); a ping unanswered at the next one drops the client. */
  readonly derivePingIntervalMs: number;
  /** Thalex: a client that sent no protocol ping for this long is dropped (sandbox rule; clients ping every 5 s). */
  readonly thalexClientPingTimeoutMs: number;
  /** Delta: heartbeat interval after enable_heartbeat (real: 30 s); no subscription this long after connect -> close (60 s). */
  readonly deltaHeartbeatMs: number;
  readonly deltaNoActivityMs: number;
  /** Bullish: interval of the server's `V1TAHeartbeat` pushes on every market-data socket (sandbox value: 30 s). */
  readonly bullishHeartbeatMs: number;
  /** Paradex: server protocol ping interval and pong deadline (real: 55 s, 5 s). */
  readonly paradexPingIntervalMs: number;
  readonly paradexPongTimeoutMs: number;
}

export const REAL_TIMINGS: ProtocolTimings = {
  deribitMinHeartbeatSec: 10,
  bybitIdleMs: 600_000,
  okxNoSubscriptionMs: 30_000,
  binancePingIntervalMs: 180_000,
  binancePongTimeoutMs: 600_000,
  binanceMaxLifetimeMs: 24 * 3600 * 1000,
  derivePingIntervalMs: 30_000,
  thalexClientPingTimeoutMs: 30_000,
  deltaHeartbeatMs: 30_000,
  deltaNoActivityMs: 60_000,
  bullishHeartbeatMs: 30_000,
  paradexPingIntervalMs: 55_000,
  paradexPongTimeoutMs: 5_000,
};

export interface VenueServerContext {
  readonly market: SandboxMarket;
  /** Trades actually written to at least one subscribed socket. */
  readonly delivered: TradeLedger;
  readonly timings: ProtocolTimings;
}

export interface VenueUrls {
  /** REST base, e.g. http://127.0.0.1:PORT */
  readonly rest: string;
  /**
   * WebSocket endpoints by role (deribit / derive / thalex / delta / paradex: main; bybit: option/linear/spot; okx:
   * public; binance: public/market/spot; bullish: trades/tick/index).
   */
  readonly ws: Readonly<Record<string, string>>;
}

export interface VenueServer {
  readonly venue: SandboxVenue;
  readonly urls: VenueUrls;
  /** Push one model step's events to subscribers in the venue's wire format. */
  publish(events: readonly MarketEvent[]): void;
  /** Fault: send a malformed frame to every client. Returns the number of clients. */
  malformed(kind: MalformedKind): number;
  disconnectAll(): number;
  silence(ms: number): void;
  /** Hold outbound frames (see VenueHost.hold); release() writes them in order, resolving with the count. */
  hold(): void;
  release(): Promise<number>;
  readonly clientCount: number;
  close(): Promise<void>;
}
