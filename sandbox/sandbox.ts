import type { MarketEvent, MarketSymbol } from '#schemas/events.ts';
import { childLogger } from '#platform/log.ts';
import { TradeLedger } from './market/ledger.ts';
import { createSandboxMarket, type SandboxMarket, type SandboxMarketOptions } from './market/market.ts';
import { SANDBOX_VENUES, type SandboxVenue } from './market/venues.ts';
import { startBinanceServer } from './servers/binance.ts';
import { startBybitServer } from './servers/bybit.ts';
import { startDeribitServer } from './servers/deribit.ts';
import { startOkxServer } from './servers/okx.ts';
import { startDeriveServer } from './servers/derive.ts';
import { startThalexServer } from './servers/thalex.ts';
import { startDeltaServer } from './servers/delta.ts';
import { startBullishServer } from './servers/bullish.ts';
import { startParadexServer } from './servers/paradex.ts';
import {
  REAL_TIMINGS,
  type MalformedKind,
  type ProtocolTimings,
  type VenueServer,
  type VenueServerContext,
  type VenueUrls,
} from './servers/types.ts';

export interface StartSandboxOptions {
  readonly seed: number;
  readonly venues?: readonly SandboxVenue[];
  readonly symbols?: readonly MarketSymbol[];
  /** Simulated ms per real ms. 0 = manual clock (use advance / emitTrades). Default 1. */
  readonly speed?: number;
  /** First port; venues get port, port+1, ... in `venues` order. Default: ephemeral ports. */
  readonly port?: number;
  /** Simulated start; default now (so at speed 1 venue timestamps track the wall clock). */
  readonly startMs?: number;
  /** Model tick and real-time driver period, ms. Default 100. */
  readonly tickMs?: number;
  readonly timings?: Partial<ProtocolTimings>;
  /** Extra model settings (ticker cadence, flow bias, activity). */
  readonly model?: Partial<Omit<SandboxMarketOptions, 'seed' | 'startMs' | 'symbols' | 'venues' | 'tickMs' | 'ledgerCapacity'>>;
  /** Entries the generated and delivered ledgers keep per venue (newest; counts stay exact). Default: all (tests). */
  readonly ledgerCapacity?: number;
}

export interface SandboxFaults {
  /** Abruptly drop every client of the venue (all venues when omitted). Returns the number dropped. */
  disconnect(venue?: SandboxVenue): number;
  /** Send a malformed frame to every client of the venue. */
  malformed(venue: SandboxVenue, kind?: MalformedKind): number;
  /** The venue sends nothing (data, acks, pongs, heartbeats) for ms; data generated meanwhile is lost. */
  silence(venue: SandboxVenue, ms: number): void;
  /** Publish n option trades at once. */
  burst(venue: SandboxVenue, n: number, symbol?: MarketSymbol): readonly MarketEvent[];
  /** Publish n liquidations at once (see SandboxMarket.burstLiquidations). */
  liquidations(venue: SandboxVenue, n: number): readonly MarketEvent[];
}

export interface Sandbox {
  readonly urls: Readonly<Partial<Record<SandboxVenue, VenueUrls>>>;
  readonly market: SandboxMarket;
  /** Trades/liquidations written to at least one subscribed socket, per venue (the end-to-end "emitted"). */
  readonly ledger: TradeLedger;
  /** Everything the model generated, delivered or not. */
  readonly generated: TradeLedger;
  readonly servers: Readonly<Partial<Record<SandboxVenue, VenueServer>>>;
  /** Manual clock: advance simulated time and publish the events. */
  advance(simMs: number): readonly MarketEvent[];
  /** Publish exactly n option trades on the venue now. */
  emitTrades(venue: SandboxVenue, n: number, symbol?: MarketSymbol): readonly MarketEvent[];
  /** Publish exactly n perp (or spot) trades on the venue now. */
  emitLinearTrades(venue: SandboxVenue, n: number, market: 'perp' | 'spot'): readonly MarketEvent[];
  readonly faults: SandboxFaults;
  stop(): Promise<void>;
}

const log = childLogger('sandbox');

export async function startSandbox(opts: StartSandboxOptions): Promise<Sandbox> {
  const venues = opts.venues ?? SANDBOX_VENUES;
  const tickMs = opts.tickMs ?? 100;
  const speed = opts.speed ?? 1;
  const market = createSandboxMarket({
    ...opts.model,
    seed: opts.seed,
    startMs: opts.startMs ?? Math.floor(Date.now() / tickMs) * tickMs,
    venues,
    tickMs,
    ...(opts.symbols ? { symbols: opts.symbols } : {}),
    ...(opts.ledgerCapacity !== undefined ? { ledgerCapacity: opts.ledgerCapacity } : {}),
  });
  const ctx: VenueServerContext = {
    market,
    delivered: new TradeLedger(opts.ledgerCapacity),
    timings: { ...REAL_TIMINGS, ...opts.timings },
  };
  const starters: Readonly<Record<SandboxVenue, (ctx: VenueServerContext, port: number) => Promise<VenueServer>>> = {
    deribit: startDeribitServer,
    bybit: startBybitServer,
    okx: startOkxServer,
    binance: startBinanceServer,
    derive: startDeriveServer,
    thalex: startThalexServer,
    // Delta India and Delta (global): the same protocol on two hosts.
    delta_india: (c, p) => startDeltaServer('delta_india', c, p),
    delta: (c, p) => startDeltaServer('delta', c, p),
    bullish: startBullishServer,
    paradex: startParadexServer,
  };
  const servers: Partial<Record<SandboxVenue, VenueServer>> = {};
  const urls: Partial<Record<SandboxVenue, VenueUrls>> = {};
  for (const [i, v] of venues.entries()) {
    const s = await starters[v](ctx, opts.port ? opts.port + i : 0);
    servers[v] = s;
    urls[v] = s.urls;
  }
  const server = (v: SandboxVenue): VenueServer => {
    const s = servers[v];
    if (!s) throw new Error(`venue ${v} is not served by this sandbox`);
    return s;
  };

  const publish = (events: readonly MarketEvent[]): void => {
    if (events.length === 0) return;
    for (const v of venues) {
      const mine = events.filter((e) => e.event.venue === v);
      if (mine.length > 0) server(v).publish(mine);
    }
  };
  const advance = (simMs: number): readonly MarketEvent[] => {
    const ev = market.step(simMs);
    publish(ev);
    return ev;
  };
  const emitTrades = (venue: SandboxVenue, n: number, symbol?: MarketSymbol): readonly MarketEvent[] => {
    const ev = market.burst(venue, n, symbol);
    server(venue).publish(ev);
    return ev;
  };

  let timer: NodeJS.Timeout | null = null;
  if (speed > 0) {
    let last = Date.now();
    timer = setInterval(() => {
      const now = Date.now();
      advance((now - last) * speed);
      last = now;
    }, tickMs);
  }
  log.info({ venues, speed, urls }, 'sandbox started');

  return {
    urls,
    market,
    ledger: ctx.delivered,
    generated: market.ledger,
    servers,
    advance,
    emitTrades,
    emitLinearTrades: (venue, n, kind) => {
      const ev = market.burstLinear(venue, n, kind);
      server(venue).publish(ev);
      return ev;
    },
    faults: {
      disconnect: (venue) => (venue ? server(venue).disconnectAll() : venues.reduce((n, v) => n + server(v).disconnectAll(), 0)),
      malformed: (venue, kind = 'truncated') => server(venue).malformed(kind),
      silence: (venue, ms) => server(venue).silence(ms),
      burst: emitTrades,
      liquidations: (venue, n) => {
        const ev = market.burstLiquidations(venue, n);
        server(venue).publish(ev);
        return ev;
      },
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await Promise.all(Object.values(servers).map((s) => s.close()));
    },
  };
}
