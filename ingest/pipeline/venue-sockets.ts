import { ignoredFramesTotal } from '../transport/metrics.ts';
import type { Instrument, MarketSymbol } from '#schemas/events.ts';
import type { ConnectionPlan, HeartbeatRule, ParseResult, ParserContext, VenueConnectorSpec } from '../connector/types.ts';
import { createParserContext } from '../connector/context.ts';
import {
  ResilientSocket,
  type HeartbeatRule as SocketHeartbeat,
  type ReconnectPolicy,
  type SocketEvent,
} from '../transport/resilient-socket.ts';
import type { Logger } from '#platform/log.ts';
import type { VenueSink } from './venue-sink.ts';

/** The socket-level heartbeat of a connector rule (server-driven rules need none on the client side). */
export function socketHeartbeat(hb: HeartbeatRule): SocketHeartbeat | undefined {
  switch (hb.kind) {
    case 'app_ping':
      return { kind: 'app', payload: hb.payload, intervalMs: hb.intervalMs };
    case 'client_protocol_ping':
      return { kind: 'protocol', intervalMs: hb.intervalMs };
    default:
      return undefined;
  }
}

export interface VenueSocketOptions {
  readonly staleMs?: number;
  readonly reconnectBackoff?: ReconnectPolicy;
  readonly onSocketEvent?: (connection: string, event: SocketEvent) => void;
  /**
   * A connection that had delivered frames came back after a close: `sinceMs` = its last frame before the outage,
   * `untilMs` = the reopen. The runner fills the gap from REST (spec.gapFill).
   */
  readonly onReconnectGap?: (connection: string, sinceMs: number, untilMs: number) => void;
}

/**
 * The WebSocket side of one venue: one ResilientSocket per connection plan. Every frame goes through the
 * venue's pure parser; events and dead letters go to the sink, and when the sink signals backpressure the
 * socket stops reading until the publisher caught up.
 */
export class VenueSockets {
  private readonly sockets = new Map<string, { plan: ConnectionPlan; socket: ResilientSocket }>();

  constructor(
    private readonly spec: VenueConnectorSpec,
    private readonly sink: VenueSink,
    private readonly instruments: Map<string, Instrument>,
    private readonly indexPrices: Map<MarketSymbol, number>,
    private readonly opts: VenueSocketOptions,
    private readonly log: Logger,
  ) {}

  /** Open and planned sockets. */
  counts(): { open: number; planned: number } {
    return { open: [...this.sockets.values()].filter((s) => s.socket.isOpen).length, planned: this.sockets.size };
  }

  /** (Re)plans connections from the known instruments: unchanged plans keep their sockets. */
  async apply(symbols: readonly MarketSymbol[]): Promise<void> {
    const plans = this.spec.connections(symbols, [...this.instruments.values()]);
    const wanted = new Map(plans.map((p) => [p.id, p]));
    for (const [id, s] of this.sockets) {
      const next = wanted.get(id);
      if (!next || next.url !== s.plan.url || next.subscribeFrames.join('\n') !== s.plan.subscribeFrames.join('\n')) {
        this.sockets.delete(id);
        await s.socket.close();
      }
    }
    for (const plan of plans) if (!this.sockets.has(plan.id)) this.sockets.set(plan.id, { plan, socket: this.open(plan) });
    this.log.info({ connections: plans.length, instruments: this.instruments.size }, 'subscriptions planned');
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.sockets.values()].map((s) => s.socket.close()));
    this.sockets.clear();
  }

  private open(plan: ConnectionPlan): ResilientSocket {
    const { opts, spec } = this;
    const hb = plan.heartbeat;
    // Outage tracking for the gap fill: the last frame's receive time, and where an outage began.
    const outage = { lastFrameAt: null as number | null, since: null as number | null };
    const onEvent = (e: SocketEvent): void => {
      if (e.type === 'close' && outage.since === null && outage.lastFrameAt !== null) outage.since = outage.lastFrameAt;
      else if (e.type === 'open' && !e.replacing && outage.since !== null) {
        const since = outage.since;
        outage.since = null;
        opts.onReconnectGap?.(plan.id, since, Date.now());
      }
      opts.onSocketEvent?.(plan.id, e);
    };
    const handle = this.frameHandler(plan, () => socket);
    const setup = hb.kind === 'server_test_request' ? [hb.setup] : [];
    const socket: ResilientSocket = new ResilientSocket({
      url: plan.url,
      venue: spec.venue,
      name: plan.id,
      heartbeat: socketHeartbeat(hb),
      staleMs: hb.kind === 'server_test_request' ? Math.min(hb.timeoutMs, opts.staleMs ?? hb.timeoutMs) : (opts.staleMs ?? 60_000),
      ...(opts.reconnectBackoff ? { backoff: opts.reconnectBackoff } : {}),
      onEvent,
      maxLifetimeMs: hb.kind === 'protocol_ping' ? hb.maxConnectionMs : undefined,
      onOpen: () => [...setup, ...plan.subscribeFrames],
      onFrame: (frame, receivedAt) => {
        outage.lastFrameAt = receivedAt;
        handle(frame, receivedAt);
      },
    });
    return socket.start();
  }

  /** Parse one frame; publish its events or dead letter, answer control frames, and pause on backpressure. */
  private frameHandler(plan: ConnectionPlan, socket: () => ResilientSocket): (frame: string | Buffer, receivedAt: number) => void {
    const { spec, sink } = this;
    const ctx: ParserContext = createParserContext({
      venue: spec.venue,
      connection: plan.id,
      instruments: this.instruments,
      indexPrices: this.indexPrices,
    });
    // The ignored-frame counter per kind, bound once per connection (not a label lookup per frame).
    const ignored = new Map<string, { inc(): void }>();
    const countIgnored = (kind: string): void => {
      let c = ignored.get(kind);
      if (c === undefined) ignored.set(kind, (c = ignoredFramesTotal.labels({ venue: spec.venue, kind })));
      c.inc();
    };
    return (frame, receivedAt) => {
      ctx.receivedAt = receivedAt;
      const binary = typeof frame !== 'string';
      let r: ParseResult;
      if (!binary) r = spec.parse(frame, ctx);
      else if (spec.parseBinary) r = spec.parseBinary(frame, ctx);
      else r = spec.parse(frame.toString('utf8'), ctx);
      let pressure: Promise<void> | undefined;
      if (r.outcome === 'events') pressure = sink.publish(r.events, receivedAt);
      else if (r.outcome === 'ignored') {
        countIgnored(r.control.kind);
        if (r.control.reply) socket().send(r.control.reply);
      } else if (binary)
        pressure = sink.deadLetter(plan.id, r.channel || plan.id, r.reason, frame.toString('base64'), 'base64', receivedAt);
      else pressure = sink.deadLetter(plan.id, r.channel || plan.id, r.reason, frame, 'utf8', receivedAt);
      if (pressure) socket().holdReading(pressure);
    };
  }
}
