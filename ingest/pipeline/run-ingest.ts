import type { MarketSymbol, Venue } from '#schemas/events.ts';
import type { Bus } from '#bus/types.ts';
import type { VenueUrls } from '../connector/types.ts';
import { createConnector } from '../venues/registry.ts';
import { EventPublisher } from './event-publisher.ts';
import { PublishSpool } from './publish-spool.ts';
import { startVenue, type RunningVenue, type VenueRunnerOptions } from './venue-runner.ts';
import type { SocketEvent } from '../transport/resilient-socket.ts';
import type { PublisherOptions } from './event-publisher.ts';
import { childLogger } from '#platform/log.ts';

export interface IngestOptions {
  readonly bus: Bus;
  readonly venues: readonly Venue[];
  readonly symbols: readonly MarketSymbol[];
  /** Base-URL overrides per venue (the sandbox market's localhost URLs); production defaults otherwise. */
  readonly urls?: Partial<Record<Venue, VenueUrls>>;
  readonly instrumentRefreshMs?: number;
  /** Socket silence that forces a reconnect (tests shrink it). See VenueRunnerOptions.staleMs. */
  readonly staleMs?: number;
  readonly reconnectBackoff?: VenueRunnerOptions['reconnectBackoff'];
  /** See VenueRunnerOptions.startFillMs (INGEST_START_FILL_MS). */
  readonly startFillMs?: number;
  readonly publisher?: Partial<PublisherOptions>;
  /** The publish spool (publish-spool.ts): its directory and size bound. Unset: none. */
  readonly spool?: { readonly dir: string; readonly maxBytes: number };
  /** Observer of every socket's lifecycle events, by venue and connection id. */
  readonly onSocketEvent?: (venue: Venue, connection: string, event: SocketEvent) => void;
}

export interface RunningIngest {
  readonly venues: readonly RunningVenue[];
  /** Publish everything buffered (used before reading what was ingested). */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

/** The ingest role: one connector per configured venue, all publishing through one batching publisher. */
export async function startIngest(opts: IngestOptions): Promise<RunningIngest> {
  const log = childLogger('ingest');
  const spool = opts.spool ? new PublishSpool(opts.spool).open() : undefined;
  const publisher = new EventPublisher(opts.bus, { ...opts.publisher, ...(spool ? { spool } : {}) });
  const started = await Promise.allSettled(
    opts.venues.map((venue) =>
      startVenue({
        spec: createConnector(venue, opts.urls?.[venue] ?? {}),
        symbols: opts.symbols,
        publisher,
        instrumentRefreshMs: opts.instrumentRefreshMs,
        staleMs: opts.staleMs,
        reconnectBackoff: opts.reconnectBackoff,
        startFillMs: opts.startFillMs,
        ...(opts.onSocketEvent ? { onSocketEvent: (conn: string, e: SocketEvent) => opts.onSocketEvent?.(venue, conn, e) } : {}),
      }),
    ),
  );
  const venues: RunningVenue[] = [];
  started.forEach((r, i) => {
    if (r.status === 'fulfilled') venues.push(r.value);
    else log.error({ venue: opts.venues[i], err: (r.reason as Error).message }, 'venue failed to start');
  });
  log.info({ venues: venues.map((v) => v.venue) }, 'ingest started');
  return {
    venues,
    flush: () => publisher.flush(),
    stop: async () => {
      await Promise.all(venues.map((v) => v.stop()));
      await publisher.close();
    },
  };
}
