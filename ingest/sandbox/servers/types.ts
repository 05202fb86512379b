import type { MarketEvent } from '../../../schemas/events.ts';
import type { TradeLedger } from '../market/ledger.ts';
import type { SandboxMarket } from '../market/market.ts';
import type { SandboxVenue } from '../market/venues.ts';

export type MalformedKind = 'truncated' | 'not_json' | 'bad_field';

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
}

export const REAL_TIMINGS: ProtocolTimings = {
  deribitMinHeartbeatSec: 10,
  bybitIdleMs: 600_000,
  okxNoSubscriptionMs: 30_000,
  binancePingIntervalMs: 180_000,
  binancePongTimeoutMs: 600_000,
  binanceMaxLifetimeMs: 24 * 3600 * 1000,
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
  /** WebSocket endpoints by role (deribit: main; bybit: option/linear/spot; okx: public; binance: public/market/spot). */
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
  readonly clientCount: number;
  close(): Promise<void>;
}
