import { createHash } from 'node:crypto';
import type { Instrument, MarketEvent, MarketSymbol } from '../../schemas/events.ts';
import type { ConnectionPlan, HeartbeatRule, ParseResult, ParserContext, RestRequest, VenueConnectorSpec } from '../types.ts';
import { createParserContext, registerInstruments } from '../context.ts';
import { ResilientSocket, type HeartbeatRule as SocketHeartbeat, type SocketEvent } from '../ws/resilient-socket.ts';
import type { BackoffOptions } from '../ws/backoff.ts';
import { RestPoller, type RestRequest as RestInit } from '../ws/rest-poller.ts';
import { observeVenueLag } from '../ws/metrics.ts';
import type { EventPublisher } from './event-publisher.ts';
import { childLogger } from '../../ops/floor/log.ts';

export interface VenueRunnerOptions {
  readonly spec: VenueConnectorSpec;
  readonly symbols: readonly MarketSymbol[];
  readonly publisher: EventPublisher;
  /** Re-read the instrument listings this often; new listings re-plan the subscriptions. Default 10 min. */
  readonly instrumentRefreshMs?: number;
  /**
   * Silence on a socket for this long reconnects it. Default 60 s; on sockets whose venue heartbeat has its own
   * timeout (Deribit test_request) the shorter of the two applies.
   */
  readonly staleMs?: number;
  /** Reconnect backoff of every socket (default ws/backoff.ts DEFAULT_BACKOFF). */
  readonly reconnectBackoff?: BackoffOptions;
  /** Observer of every socket's lifecycle events (connecting, open, close, stale, ...), e.g. for tests. */
  readonly onSocketEvent?: (connection: string, event: SocketEvent) => void;
  /** REST rate limit: request starts per second. Default 5. */
  readonly restPerSecond?: number;
}

export interface RunningVenue {
  readonly venue: string;
  /** Instruments currently known (listings + names seen on the wire). */
  instruments(): readonly Instrument[];
  /** Open sockets / planned sockets. */
  connections(): { open: number; planned: number };
  stop(): Promise<void>;
}

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

/** The fetch options of a listing / poll request (GET without a body unless the spec says otherwise). */
function requestInit(method: RestRequest['method'], headers: RestRequest['headers'], body: string | undefined): RestInit {
  if (method === undefined && headers === undefined && body === undefined) return {};
  return { method: method ?? 'GET', ...(headers ? { headers } : {}), ...(body !== undefined ? { body } : {}) };
}

/**
 * The I/O half of one venue: fetches the instrument listings through the rate-limited REST client, opens the
 * planned WebSocket connections with their heartbeat rules, parses every frame with the venue's pure parser and
 * hands events and dead letters to the publisher. Parse failures never stop the stream.
 */
export async function startVenue(opts: VenueRunnerOptions): Promise<RunningVenue> {
  const { spec, symbols, publisher } = opts;
  const venue = spec.venue;
  const log = childLogger(`ingest.${venue}`);
  const instruments = new Map<string, Instrument>();
  const indexPrices = new Map<MarketSymbol, number>();
  const rest = new RestPoller({ venue, intervalCap: opts.restPerSecond ?? 5, intervalMs: 1000 });
  const restCtx = createParserContext({ venue, connection: 'rest', instruments, indexPrices });
  const sockets = new Map<string, { plan: ConnectionPlan; socket: ResilientSocket }>();
  const stopPollers: (() => void)[] = [];
  let stopped = false;

  const deadLetter = (connection: string, channel: string, reason: string, raw: string, encoding: 'utf8' | 'base64', receivedAt: number): void => {
    // The connection is part of the id: one frame received on two connections in the same ms is two dead letters.
    const id = createHash('sha1').update(`${venue}\n${connection}\n${receivedAt}\n${raw}`).digest('hex');
    void publisher.deadLetter({ venue, channel, reason, raw, encoding, receivedAt, id });
  };

  const publish = (events: readonly MarketEvent[], receivedAt: number): void => {
    if (events.length === 0) return;
    for (const e of events) if (e.type === 'option_trade' || e.type === 'perp_trade') observeVenueLag(venue, e.event.ts, receivedAt);
    void publisher.add(events);
  };

  /** Runs one REST request (following pagination) and publishes what it yields. */
  const runRequest = async (req: RestRequest): Promise<void> => {
    let url: string | null = req.url;
    let body = req.body;
    for (let page = 0; url !== null && page < 1000; page++) {
      const res = await rest.request(url, requestInit(req.method, req.headers, body));
      restCtx.receivedAt = res.receivedAt;
      const parsed = req.parse(res.body, restCtx);
      if (!parsed.ok) {
        deadLetter('rest', req.id, parsed.reason, res.body.slice(0, 65_536), 'utf8', res.receivedAt);
        return;
      }
      registerInstruments(restCtx, parsed.events);
      publish(parsed.events, res.receivedAt);
      url = parsed.nextUrl;
      if (parsed.nextBody !== undefined) body = parsed.nextBody;
    }
  };

  const loadInstruments = async (): Promise<void> => {
    const results = await Promise.allSettled(spec.instrumentRequests(symbols).map(runRequest));
    for (const r of results) if (r.status === 'rejected') log.warn({ err: (r.reason as Error).message }, 'instrument listing failed');
  };

  const openSocket = (plan: ConnectionPlan): ResilientSocket => {
    const ctx: ParserContext = createParserContext({ venue, connection: plan.id, instruments, indexPrices });
    const hb = plan.heartbeat;
    const heartbeat = socketHeartbeat(hb);
    const setup = hb.kind === 'server_test_request' ? [hb.setup] : [];
    const socket: ResilientSocket = new ResilientSocket({
      url: plan.url,
      venue,
      name: plan.id,
      heartbeat,
      staleMs: hb.kind === 'server_test_request' ? Math.min(hb.timeoutMs, opts.staleMs ?? hb.timeoutMs) : (opts.staleMs ?? 60_000),
      ...(opts.reconnectBackoff ? { backoff: opts.reconnectBackoff } : {}),
      ...(opts.onSocketEvent ? { onEvent: (e: SocketEvent) => opts.onSocketEvent?.(plan.id, e) } : {}),
      maxLifetimeMs: hb.kind === 'protocol_ping' ? hb.maxConnectionMs : undefined,
      onOpen: () => [...setup, ...plan.subscribeFrames],
      onFrame: (frame, receivedAt) => {
        ctx.receivedAt = receivedAt;
        const binary = typeof frame !== 'string';
        let r: ParseResult;
        if (!binary) r = spec.parse(frame, ctx);
        else if (spec.parseBinary) r = spec.parseBinary(frame, ctx);
        else r = spec.parse(frame.toString('utf8'), ctx);
        if (r.outcome === 'events') publish(r.events, receivedAt);
        else if (r.outcome === 'ignored') {
          if (r.control.reply) socket.send(r.control.reply);
        } else if (binary) deadLetter(plan.id, r.channel || plan.id, r.reason, frame.toString('base64'), 'base64', receivedAt);
        else deadLetter(plan.id, r.channel || plan.id, r.reason, frame, 'utf8', receivedAt);
      },
    });
    return socket.start();
  };

  /** (Re)plans connections from the known instruments: unchanged plans keep their sockets. */
  const applyPlans = async (): Promise<void> => {
    const plans = spec.connections(symbols, [...instruments.values()]);
    const wanted = new Map(plans.map((p) => [p.id, p]));
    for (const [id, s] of sockets) {
      const next = wanted.get(id);
      if (!next || next.url !== s.plan.url || next.subscribeFrames.join('\n') !== s.plan.subscribeFrames.join('\n')) {
        sockets.delete(id);
        await s.socket.close();
      }
    }
    for (const plan of plans) if (!sockets.has(plan.id)) sockets.set(plan.id, { plan, socket: openSocket(plan) });
    log.info({ connections: plans.length, instruments: instruments.size }, 'subscriptions planned');
  };

  await loadInstruments();
  await applyPlans();
  for (const poller of spec.pollers(symbols, [...instruments.values()])) {
    stopPollers.push(rest.schedule(poller.id, poller.intervalMs, () => runRequest(poller)));
  }
  stopPollers.push(
    rest.schedule(
      'instrument-refresh',
      opts.instrumentRefreshMs ?? 600_000,
      async () => {
        await loadInstruments();
        if (!stopped) await applyPlans();
      },
      { immediate: false },
    ),
  );

  return {
    venue,
    instruments: () => [...instruments.values()],
    connections: () => ({ open: [...sockets.values()].filter((s) => s.socket.isOpen).length, planned: sockets.size }),
    stop: async () => {
      stopped = true;
      for (const stop of stopPollers) stop();
      await Promise.all([...sockets.values()].map((s) => s.socket.close()));
      sockets.clear();
      await rest.close();
    },
  };
}
