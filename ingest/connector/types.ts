/**
 * The connector shape every venue folder (ingest/<venue>/index.ts) exports.
 *
 * A connector is split in two halves:
 * - the PURE half (this file's types, implemented per venue): endpoints, subscribe frames, heartbeat rules,
 *   REST instrument listings / pollers and `parse(frame, ctx)`. No I/O, no clocks, no timers; everything a
 *   parser needs from earlier frames lives in the per-connection `ParserContext`.
 * - the I/O half (ingest/transport/**): opens the sockets from `connections(...)`, sends the frames, runs the
 *   heartbeat, sets `ctx.receivedAt` before each `parse`, publishes `events`, sends `control.reply`, and
 *   writes dead letters.
 *
 * Parsers never throw: every frame ends as exactly one `ParseResult`:
 * - `{ ok: true, outcome: 'events' }`   normalized events (possibly several per frame),
 * - `{ ok: true, outcome: 'ignored' }`  a control frame (ack, pong, heartbeat, venue error reply) or data for
 *                                        an underlying we do not track (e.g. LTC); nothing to publish,
 * - `{ ok: false, outcome: 'dead_letter' }` truncated / malformed / unknown frames, with a reason; the caller
 *                                        publishes a DeadLetter (schemas/events.ts) with the raw frame.
 */
import type { Instrument, MarketEvent, MarketSymbol, Venue } from '#schemas/events.ts';

/** What a control frame was, and what (if anything) must be sent back on the same socket. */
export interface ControlFrame {
  /** `dropped`: data the product does not store by rule (e.g. a Binance futures trade that is not a taker trade). */
  readonly kind: 'ack' | 'pong' | 'heartbeat' | 'venue_error' | 'untracked' | 'info' | 'dropped';
  /** Human-readable detail (e.g. the venue's error message, or the untracked underlying). */
  readonly detail?: string;
  /** A text frame to send back immediately (e.g. Deribit's reply to a heartbeat `test_request`). */
  readonly reply?: string;
}

export type ParseResult =
  | { readonly ok: true; readonly outcome: 'events'; readonly events: readonly MarketEvent[] }
  | {
      readonly ok: true;
      readonly outcome: 'ignored';
      readonly events: readonly [];
      readonly control: ControlFrame;
    }
  | {
      readonly ok: false;
      readonly outcome: 'dead_letter';
      /** Short machine-greppable reason, e.g. `malformed json`, `unknown channel: book.BTC-PERPETUAL.raw`. */
      readonly reason: string;
      /** The venue channel / topic / stream if it could be read, else ''. */
      readonly channel: string;
    };

/** Mutable state of one Bybit `tickers.*` stream (snapshot + delta merge): field -> latest raw value. */
export type TickerState = Map<string, Record<string, unknown>>;

/**
 * Per-connection parser context. Owned by the I/O layer, read and updated by `parse` without I/O.
 * `instruments` may be shared by all connections of one venue (pass the same Map to createParserContext).
 */
export interface ParserContext {
  readonly venue: Venue;
  /** The connection id from `ConnectionPlan.id` ('public', 'option', 'linear', 'spot', 'market', ...). */
  readonly connection: string;
  /** Local receive time of the frame being parsed, ms UTC. The I/O layer sets it before each `parse`. */
  receivedAt: number;
  /** Venue instrument name -> normalized instrument (strike, expiry, type, contractSize, symbol). */
  readonly instruments: Map<string, Instrument>;
  /** Latest index price per symbol seen on this connection (used to convert inverse option prices to USD). */
  readonly indexPrices: Map<MarketSymbol, number>;
  /** Bybit tickers delta-merge state, keyed by venue symbol. */
  readonly tickerState: TickerState;
  /** Name-parsing fallback results for names not in `instruments` (kept apart so they never drive subscriptions). */
  readonly nameCache: Map<string, Instrument | null>;
  /** Message ids already seen where a venue re-sends a cached message on subscribe (OKX option-trades). */
  readonly seen: Set<string>;
}

/** How a connection is kept alive. */
export type HeartbeatRule =
  /** Send `payload` as a text frame every `intervalMs`; the venue answers with a pong frame (parsed as control). */
  | { readonly kind: 'app_ping'; readonly intervalMs: number; readonly payload: string }
  /**
   * Send `setup` once after connecting; the server then sends test requests that `parse` answers with a
   * `control.reply` (Deribit public/set_heartbeat + public/test). `timeoutMs`: drop if nothing arrives.
   */
  | { readonly kind: 'server_test_request'; readonly setup: string; readonly timeoutMs: number }
  /** The server sends protocol-level ping frames; answer with protocol pongs (the ws library does). */
  | { readonly kind: 'protocol_ping'; readonly serverPingEveryMs: number; readonly maxConnectionMs: number }
  /**
   * The CLIENT sends a WebSocket protocol ping every `intervalMs` (Thalex); a ping still unanswered at the next
   * beat drops the connection (it then reconnects).
   */
  | { readonly kind: 'client_protocol_ping'; readonly intervalMs: number };

/** One WebSocket connection to open: where, what to send after open, and how to keep it alive. */
export interface ConnectionPlan {
  /** Stable id, also put into `ParserContext.connection` (e.g. 'option-0', 'linear', 'market'). */
  readonly id: string;
  readonly url: string;
  /** Text frames to send in order after the socket opens (and again after every reconnect). */
  readonly subscribeFrames: readonly string[];
  readonly heartbeat: HeartbeatRule;
}

/** Result of parsing one REST response body. */
export type RestParseResult =
  | {
      readonly ok: true;
      readonly events: readonly MarketEvent[];
      readonly nextUrl: string | null;
      /** Request body of the next page of a paginated POST listing (same method and headers); default: unchanged. */
      readonly nextBody?: string;
    }
  | { readonly ok: false; readonly reason: string };

/** A REST request whose response becomes events (instrument listings, open-interest polls). */
export interface RestRequest {
  readonly id: string;
  readonly url: string;
  /** HTTP method; default GET. POST listings (Derive v3) carry a JSON `body`. */
  readonly method?: 'GET' | 'POST';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /**
   * Gap-fill requests only: at least this many ms between the start of this request and the next one of the fill
   * (a venue endpoint with its own, tighter request-weight budget, e.g. Binance options).
   */
  readonly paceMs?: number;
  /** Pure: body text + context -> events; `nextUrl` (and `nextBody`) for paginated listings (fetch and parse again). */
  readonly parse: (body: string, ctx: ParserContext) => RestParseResult;
}

export interface RestPoller extends RestRequest {
  readonly intervalMs: number;
}

/** Base URLs of one venue. Production defaults live in each venue's spec; override them for a sandbox. */
export type VenueUrls = Readonly<Record<string, string>>;

/**
 * Trades missed while a connection was down, recovered from the venue's public REST recent-trades endpoint after
 * the reconnect (the venue's look-back bounds what can be recovered). The I/O layer calls `requests` with the
 * instant the connection went silent (its last frame), keeps the trades at or after it, and publishes those whose
 * event id was not published before (ingest/pipeline/recent-ids.ts): exactly once, whichever copy comes first.
 */
export interface GapFillSpec {
  /** Connection ids (ConnectionPlan.id) that carry the trades these requests recover. */
  covers(connectionId: string): boolean;
  /**
   * Requests for the trades of `symbols` from `sinceMs` on (paginated through RestParseResult.nextUrl), for the
   * connections in `scope.connections` (those whose outage this fill covers); `scope.instruments` are the venue's
   * listed instruments (per-instrument endpoints: perp and spot recent trades).
   */
  requests(symbols: readonly MarketSymbol[], sinceMs: number, untilMs: number, scope: GapFillScope): readonly RestRequest[];
}

/** What a gap fill covers: the connections that were down, and the instruments the venue lists. */
export interface GapFillScope {
  readonly connections: ReadonlySet<string>;
  readonly instruments: readonly Instrument[];
}

export interface VenueConnectorSpec {
  readonly venue: Venue;
  /** The (possibly overridden) base URLs this spec was built with. */
  readonly urls: VenueUrls;
  /** REST listings to fetch before subscribing; each Instrument event is also put into ctx.instruments. */
  instrumentRequests(symbols: readonly MarketSymbol[]): readonly RestRequest[];
  /** The connections to open for `symbols`, given the instruments discovered by the listings. */
  connections(symbols: readonly MarketSymbol[], instruments: readonly Instrument[]): readonly ConnectionPlan[];
  /** Periodic REST polls (e.g. Binance perp open interest). */
  pollers(symbols: readonly MarketSymbol[], instruments: readonly Instrument[]): readonly RestPoller[];
  /** Pure frame parser. Never throws. */
  parse(frame: string, ctx: ParserContext): ParseResult;
  /**
   * Pure parser of BINARY frames (Paradex SBE). Never throws. Without it, binary frames are decoded as UTF-8
   * and handed to `parse`. Dead letters of binary frames keep the raw bytes base64-encoded.
   */
  parseBinary?(frame: Uint8Array, ctx: ParserContext): ParseResult;
  /** Name-parsing fallback: an Instrument from the venue name alone, or null if the name does not say enough. */
  instrumentFromName(name: string, receivedAt: number): Instrument | null;
  /** Gap fill after a reconnect (absent: the venue has no public recent-trades endpoint, see ingest/README.md). */
  readonly gapFill?: GapFillSpec;
}
