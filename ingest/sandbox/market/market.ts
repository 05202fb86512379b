import { SYMBOLS, type IndexPrice, type Instrument, type MarketEvent, type MarketSymbol } from '../../../schemas/events.ts';
import { OptionChain, type OptionQuote } from './chain.ts';
import { TradeLedger } from './ledger.ts';
import { PerpBook, SpotBook, linearInstrument } from './perps.ts';
import { Rng, streamSeed } from './prng.ts';
import { indexPrice, volIndexValue, VenueIds, type FlowSettings, type UnderlyingState } from './state.ts';
import { SYMBOL_PARAMS } from './symbols.ts';
import { stepUnderlying } from './underlying-step.ts';
import { SANDBOX_VENUES, VENUE_SPECS, type LiquidationFeed, type SandboxVenue } from './venues.ts';

export interface SandboxMarketOptions {
  readonly seed: number;
  /** Simulated clock start, ms UTC. */
  readonly startMs: number;
  readonly symbols?: readonly MarketSymbol[];
  readonly venues?: readonly SandboxVenue[];
  /** Model tick; step(dt) always advances in whole ticks so chunking does not change the path. Default 100. */
  readonly tickMs?: number;
  /** Every option contract gets a ticker once per this interval. Default 5000. */
  readonly tickerIntervalMs?: number;
  /** Perp stats and index prices cadence. Default 1000. */
  readonly statsIntervalMs?: number;
  readonly flow?: Partial<FlowSettings>;
}

export interface SandboxMarket {
  /** Simulated now, ms UTC. */
  readonly now: number;
  readonly tickMs: number;
  readonly venues: readonly SandboxVenue[];
  readonly symbols: readonly MarketSymbol[];
  /** Every trade and liquidation the model generated, per venue. */
  readonly ledger: TradeLedger;
  /** Advance the clock by dtMs (whole ticks; the remainder carries over) and return the events generated. */
  step(dtMs: number): readonly MarketEvent[];
  /** Exactly n option trades on the venue at the current instant (spread over its chains, or one symbol's). */
  burst(venue: SandboxVenue, n: number, symbol?: MarketSymbol): readonly MarketEvent[];
  /**
   * Exactly n liquidations on the venue's perps now, round-robin over the perps, a long on each then a short on
   * each (Deribit, Paradex: each also prints as a perp trade flagged as a liquidation). Throws on venues that
   * publish no liquidations (VenueSpec.liquidations 'none').
   */
  burstLiquidations(venue: SandboxVenue, n: number): readonly MarketEvent[];
  /** Current listing of the venue (options, perps, spot). */
  instruments(venue: SandboxVenue): readonly Instrument[];
  spot(symbol: MarketSymbol): number;
  index(symbol: MarketSymbol): number;
  /** DVOL-like value (vol points) for symbols that publish one, else null. */
  volIndex(symbol: MarketSymbol): number | null;
  optionQuote(venue: SandboxVenue, instrument: string): OptionQuote | null;
  chains(venue: SandboxVenue): readonly OptionChain[];
  perps(venue: SandboxVenue): readonly PerpBook[];
}

const DEFAULT_FLOW: FlowSettings = { activity: 1, customerBuyBias: 0.15, openingProbability: 0.6 };
/** Base rates per second for a venue with share 1 and a symbol with activity 1. */
const OPTION_TRADES_PER_SEC = 1.5;
const PERP_TRADES_PER_SEC = 8;
const SPOT_TRADES_PER_SEC = 6;
const LIQ_PER_SEC = 0.02;

interface VenueBooks {
  readonly venue: SandboxVenue;
  readonly share: number;
  readonly liquidations: LiquidationFeed;
  readonly ids: VenueIds;
  readonly rng: Rng;
  readonly chains: OptionChain[];
  readonly perps: PerpBook[];
  readonly spots: SpotBook[];
}

export function createSandboxMarket(opts: SandboxMarketOptions): SandboxMarket {
  const symbols = opts.symbols ?? SYMBOLS;
  const venues = opts.venues ?? SANDBOX_VENUES;
  const tickMs = opts.tickMs ?? 100;
  const tickerIntervalMs = opts.tickerIntervalMs ?? 5000;
  const statsIntervalMs = opts.statsIntervalMs ?? 1000;
  const flow: FlowSettings = { ...DEFAULT_FLOW, ...opts.flow };
  const ledger = new TradeLedger();
  let now = opts.startMs;
  let carry = 0;

  const commonRng = new Rng(streamSeed(opts.seed, 'market'));
  const underlyings = new Map<MarketSymbol, { u: UnderlyingState; rng: Rng }>();
  for (const symbol of symbols) {
    const params = SYMBOL_PARAMS[symbol];
    underlyings.set(symbol, {
      u: { symbol, params, spot: params.startPrice, level: params.volLevel, lastJump: 0, lastReturn: 0 },
      rng: new Rng(streamSeed(opts.seed, 'spot', symbol)),
    });
  }
  const und = (s: MarketSymbol): UnderlyingState => {
    const x = underlyings.get(s);
    if (!x) throw new Error(`symbol ${s} not in this sandbox`);
    return x.u;
  };

  const books: VenueBooks[] = venues.map((venue) => {
    const spec = VENUE_SPECS[venue];
    const rng = new Rng(streamSeed(opts.seed, 'venue', venue));
    const inSet = <T extends { readonly symbol: MarketSymbol }>(xs: readonly T[]): T[] => xs.filter((x) => underlyings.has(x.symbol));
    return {
      venue,
      share: spec.share,
      liquidations: spec.liquidations,
      ids: new VenueIds(venue, new Rng(streamSeed(opts.seed, 'ids', venue))),
      rng,
      chains: inSet(spec.options).map(
        (s) => new OptionChain(venue, s, und(s.symbol), spec.share, new Rng(streamSeed(opts.seed, 'chain', venue, s.symbol)), now),
      ),
      perps: inSet(spec.perps).map((s) => new PerpBook(venue, s, und(s.symbol), spec.share, new Rng(streamSeed(opts.seed, 'perp', venue, s.symbol)))),
      spots: inSet(spec.spots).map((s) => new SpotBook(venue, s, und(s.symbol), new Rng(streamSeed(opts.seed, 'spotbook', venue, s.symbol)))),
    };
  });

  function evolveUnderlyings(): void {
    const zCommon = commonRng.normal();
    for (const { u, rng } of underlyings.values()) stepUnderlying(u, rng, zCommon, tickMs);
  }


  function indexEvents(b: VenueBooks, out: MarketEvent[]): void {
    for (const { u } of underlyings.values()) {
      const base = u.params.base;
      let name: string | null = null;
      if (b.venue === 'deribit' && b.chains.some((c) => c.spec.symbol === u.symbol)) name = base === 'SOL' ? 'sol_usdc' : `${base.toLowerCase()}_usd`;
      if (b.venue === 'okx') name = `${base}-USD`;
      // Binance `!index@arr`: the options' underlying index per underlying that has options.
      if (b.venue === 'binance' && b.chains.some((c) => c.spec.symbol === u.symbol)) name = u.symbol;
      // Second batch: venues with an index channel of their own, for every coin they list something on.
      const named = VENUE_SPECS[b.venue].indexName;
      if (named && (b.chains.some((c) => c.spec.symbol === u.symbol) || b.perps.some((p) => p.spec.symbol === u.symbol))) name = named(base);
      if (!name) continue;
      const ev: IndexPrice = { venue: b.venue, symbol: u.symbol, ts: now, receivedAt: now, id: `${b.venue}:index:${name}:${now}`, kind: 'index', name, value: indexPrice(u) };
      out.push({ type: 'index', event: ev });
      if (b.venue === 'deribit' && u.params.volIndex) {
        out.push({
          type: 'index',
          event: { ...ev, id: `${b.venue}:vol_index:${name}:${now}`, kind: 'vol_index', value: volIndexValue(u) },
        });
      }
    }
  }

  function tick(): MarketEvent[] {
    now += tickMs;
    evolveUnderlyings();
    const out: MarketEvent[] = [];
    const statsDue = Math.floor(now / statsIntervalMs) !== Math.floor((now - tickMs) / statsIntervalMs);
    const dtSec = tickMs / 1000;
    for (const b of books) {
      if (statsDue) indexEvents(b, out);
      for (const chain of b.chains) {
        for (const ins of chain.roll(now)) out.push({ type: 'instrument', event: ins });
        const rate = OPTION_TRADES_PER_SEC * b.share * SYMBOL_PARAMS[chain.spec.symbol].activity * flow.activity;
        const n = b.rng.poisson(rate * dtSec);
        for (let i = 0; i < n; i++) {
          const t = chain.trade(now, b.ids, flow);
          if (t) out.push({ type: 'option_trade', event: t });
        }
        for (const tk of chain.tickerSlice(now, tickMs, tickerIntervalMs)) out.push({ type: 'option_ticker', event: tk });
      }
      for (const perp of b.perps) {
        perp.evolve(dtSec);
        const act = SYMBOL_PARAMS[perp.spec.symbol].activity * flow.activity;
        const n = b.rng.poisson(PERP_TRADES_PER_SEC * b.share * act * dtSec);
        for (let i = 0; i < n; i++) out.push({ type: 'perp_trade', event: perp.trade(now, b.ids, flow) });
        const u = und(perp.spec.symbol);
        if (b.liquidations === 'none') {
          if (statsDue) out.push({ type: 'perp_stats', event: perp.stats(now) });
          continue;
        }
        // Liquidations: a trickle, and a burst on the losing side after a jump.
        let liqs = b.rng.poisson(LIQ_PER_SEC * b.share * act * dtSec);
        let side: 'long' | 'short' = b.rng.next() < 0.5 ? 'long' : 'short';
        if (Math.abs(u.lastJump) > 0.003) {
          liqs += b.rng.poisson((Math.abs(u.lastJump) / 0.003) * 4 * b.share);
          side = u.lastJump < 0 ? 'long' : 'short';
        }
        for (let i = 0; i < liqs; i++) {
          const { trade, liquidation } = perp.liquidation(now, b.ids, flow, side);
          // Deribit / Paradex have no liquidation channel: the liquidation prints as a trade flagged as one.
          if (b.liquidations === 'as_trade') out.push({ type: 'perp_trade', event: trade });
          out.push({ type: 'liquidation', event: liquidation });
        }
        if (statsDue) out.push({ type: 'perp_stats', event: perp.stats(now) });
      }
      for (const spot of b.spots) {
        const act = SYMBOL_PARAMS[spot.spec.symbol].activity * flow.activity;
        const n = b.rng.poisson(SPOT_TRADES_PER_SEC * b.share * act * dtSec);
        for (let i = 0; i < n; i++) out.push({ type: 'spot_trade', event: spot.trade(now, b.ids) });
      }
    }
    ledger.recordEvents(out);
    return out;
  }

  const byVenue = (venue: SandboxVenue): VenueBooks => {
    const b = books.find((x) => x.venue === venue);
    if (!b) throw new Error(`venue ${venue} not in this sandbox`);
    return b;
  };

  return {
    get now() {
      return now;
    },
    tickMs,
    venues,
    symbols,
    ledger,
    step(dtMs: number): readonly MarketEvent[] {
      carry += dtMs;
      const out: MarketEvent[] = [];
      while (carry >= tickMs) {
        carry -= tickMs;
        for (const e of tick()) out.push(e);
      }
      return out;
    },
    burst(venue, n, symbol) {
      const b = byVenue(venue);
      const chains = b.chains.filter((c) => !symbol || c.spec.symbol === symbol);
      if (chains.length === 0) throw new Error(`no option chain on ${venue}${symbol ? ` for ${symbol}` : ''}`);
      const out: MarketEvent[] = [];
      let i = 0;
      while (out.length < n) {
        const chain = chains[i++ % chains.length];
        const t = chain?.trade(now, b.ids, flow);
        if (t) out.push({ type: 'option_trade', event: t });
      }
      ledger.recordEvents(out);
      return out;
    },
    burstLiquidations(venue, n) {
      const b = byVenue(venue);
      if (b.perps.length === 0) throw new Error(`no perp on ${venue}`);
      if (b.liquidations === 'none') throw new Error(`${venue} publishes no liquidations`);
      const out: MarketEvent[] = [];
      for (let i = 0; i < n; i++) {
        const perp = b.perps[i % b.perps.length];
        if (!perp) break;
        const side = Math.floor(i / b.perps.length) % 2 === 0 ? 'long' : 'short';
        const { trade, liquidation } = perp.liquidation(now, b.ids, flow, side);
        if (b.liquidations === 'as_trade') out.push({ type: 'perp_trade', event: trade });
        out.push({ type: 'liquidation', event: liquidation });
      }
      ledger.recordEvents(out);
      return out;
    },
    instruments(venue) {
      const b = byVenue(venue);
      return [
        ...b.chains.flatMap((c) => c.contracts.map((k) => c.instrument(k, k.listedAt, true))),
        ...b.perps.map((p) => linearInstrument(venue, p.spec, 'perp', opts.startMs)),
        ...b.spots.map((s) => linearInstrument(venue, s.spec, 'spot', opts.startMs)),
      ];
    },
    spot: (s) => und(s).spot,
    index: (s) => indexPrice(und(s)),
    volIndex: (s) => (und(s).params.volIndex ? volIndexValue(und(s)) : null),
    optionQuote(venue, instrument) {
      for (const c of byVenue(venue).chains) {
        const k = c.get(instrument);
        if (k) return c.quote(k, now);
      }
      return null;
    },
    chains: (venue) => byVenue(venue).chains,
    perps: (venue) => byVenue(venue).perps,
  };
}

