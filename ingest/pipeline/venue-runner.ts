import type { Instrument, MarketSymbol } from '#schemas/events.ts';
import type { VenueConnectorSpec } from '../connector/types.ts';
import type { ReconnectPolicy, SocketEvent } from '../transport/resilient-socket.ts';
import { RestPoller } from '../transport/rest-poller.ts';
import type { EventPublisher } from './event-publisher.ts';
import { VenueSink } from './venue-sink.ts';
import { VenueRest } from './venue-rest.ts';
import { VenueSockets } from './venue-sockets.ts';
import { scheduleStartFill } from './start-fill.ts';
import { childLogger } from '#platform/log.ts';

export { socketHeartbeat } from './venue-sockets.ts';

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
  /** Reconnect backoff of every socket (default DEFAULT_RECONNECT of transport/resilient-socket.ts). */
  readonly reconnectBackoff?: ReconnectPolicy;
  /** Observer of every socket's lifecycle events (connecting, open, close, stale, read_paused, ...), e.g. for tests. */
  readonly onSocketEvent?: (connection: string, event: SocketEvent) => void;
  /** REST rate limit: request starts per second. Default 5. */
  readonly restPerSecond?: number;
  /** Start-up fill look-back (start-fill.ts, INGEST_START_FILL_MS). 0 / unset = off. */
  readonly startFillMs?: number | undefined;
}

export interface RunningVenue {
  readonly venue: string;
  /** Instruments currently known (listings + names seen on the wire). */
  instruments(): readonly Instrument[];
  /** Open sockets / planned sockets. */
  connections(): { open: number; planned: number };
  stop(): Promise<void>;
}

/**
 * The I/O half of one venue: fetches the instrument listings through the rate-limited REST client, opens the
 * planned WebSocket connections with their heartbeat rules, parses every frame with the venue's pure parser and
 * hands events and dead letters to the publisher. Parse failures never stop the stream; publisher backpressure
 * pauses the reading (sockets) and the polling (REST) until the bus caught up.
 */
export async function startVenue(opts: VenueRunnerOptions): Promise<RunningVenue> {
  const { spec, symbols } = opts;
  const venue = spec.venue;
  const log = childLogger(`ingest.${venue}`);
  const instruments = new Map<string, Instrument>();
  const indexPrices = new Map<MarketSymbol, number>();
  const sink = new VenueSink(venue, opts.publisher);
  const client = new RestPoller({ venue, intervalCap: opts.restPerSecond ?? 5, intervalMs: 1000 });
  const rest = new VenueRest(spec, client, sink, instruments, indexPrices, log);
  // Gap fill: outages of several connections (a venue dropping them all) coalesce into one REST fill from the
  // earliest last frame, run 250 ms after the first reopen.
  let gap: { since: number; until: number; connections: Set<string> } | null = null;
  const onReconnectGap = (connection: string, since: number, until: number): void => {
    if (spec.gapFill === undefined || !spec.gapFill.covers(connection)) return;
    const first = gap === null;
    gap = {
      since: Math.min(since, gap?.since ?? since),
      until: Math.max(until, gap?.until ?? until),
      connections: (gap?.connections ?? new Set<string>()).add(connection),
    };
    if (!first) return;
    setTimeout(() => {
      const g = gap;
      gap = null;
      if (g !== null && !stopped) void rest.gapFill(symbols, g.since, g.until, g.connections);
    }, 250).unref();
  };
  const sockets = new VenueSockets(spec, sink, instruments, indexPrices, { ...opts, onReconnectGap }, log);
  const stopPollers: (() => void)[] = [];
  let stopped = false;

  await rest.loadInstruments(symbols);
  await sockets.apply(symbols);
  if ((opts.startFillMs ?? 0) > 0 && spec.gapFill !== undefined) {
    const connectionIds = (): string[] => spec.connections(symbols, [...instruments.values()]).map((p) => p.id);
    scheduleStartFill(
      { counts: () => sockets.counts(), connectionIds, onGap: onReconnectGap, stopped: () => stopped },
      opts.startFillMs ?? 0,
    );
  }
  for (const poller of spec.pollers(symbols, [...instruments.values()])) {
    stopPollers.push(client.schedule(poller.id, poller.intervalMs, async () => void (await rest.run(poller))));
  }
  const refresh = async (): Promise<void> => {
    await rest.loadInstruments(symbols);
    if (!stopped) await sockets.apply(symbols);
  };
  stopPollers.push(client.schedule('instrument-refresh', opts.instrumentRefreshMs ?? 600_000, refresh, { immediate: false }));

  return {
    venue,
    instruments: () => [...instruments.values()],
    connections: () => sockets.counts(),
    stop: async () => {
      stopped = true;
      rest.stop();
      for (const stop of stopPollers) stop();
      await sockets.closeAll();
      await client.close();
    },
  };
}
