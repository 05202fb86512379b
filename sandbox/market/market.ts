import { SYMBOLS, type IndexPrice, type Instrument, type MarketEvent, type MarketSymbol } from '#schemas/events.ts';
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
  /** Entries the generated-trades ledger keeps per venue (newest; counts stay exact). Default: all. */
  readonly ledgerCapacity?: number;
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
  /** Exactly n perp (or spot) trades on the venue now, round-robin over its perps (spot pairs). Throws when it lists none. */
  burstLinear(venue: SandboxVenue, n: number, market: 'perp' | 'spot'): readonly MarketEvent[];
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

type Underlyings = ReadonlyMap<MarketSymbol, { readonly u: UnderlyingState; readonly rng: Rng }>;

function createUnderlyings(seed: number, symbols: readonly MarketSymbol[]): Underlyings {
  const underlyings = new Map<MarketSymbol, { u: UnderlyingState; rng: Rng }>();
  for (const symbol of symbols) {
    const params = SYMBOL_PARAMS[symbol];
    underlyings.set(symbol, {
      u: { symbol, params, spot: params.startPrice, level: params.volLevel, lastJump: 0, lastReturn: 0 },
      rng: new Rng(streamSeed(seed, 'spot', symbol)),
    });
  }
  return underlyings;
}

function underlyingOf(underlyings: Underlyings, s: MarketSymbol): UnderlyingState {
  const x = underlyings.get(s);
  if (!x) throw new Error(`symbol ${s} not in this sandbox`);
  return x.u;
}

/** One venue's option chains, perps and spot books over the sandbox's symbols, each with its own random stream. */
function createVenueBooks(seed: number, venue: SandboxVenue, underlyings: Underlyings, now: number): VenueBooks {
  const spec = VENUE_SPECS[venue];
  const rng = new Rng(streamSeed(seed, 'venue', venue));
  const inSet = <T extends { readonly symbol: MarketSymbol }>(xs: readonly T[]): T[] => xs.filter((x) => underlyings.has(x.symbol));
  const und = (s: MarketSymbol): UnderlyingState => underlyingOf(underlyings, s);
  return {
    venue,
    share: spec.share,
    liquidations: spec.liquidations,
    ids: new VenueIds(venue, new Rng(streamSeed(seed, 'ids', venue))),
    rng,
    chains: inSet(spec.options).map(
      (s) => new OptionChain(venue, s, und(s.symbol), spec.share, new Rng(streamSeed(seed, 'chain', venue, s.symbol)), now),
    ),
    perps: inSet(spec.perps).map(
      (s) => new PerpBook(venue, s, und(s.symbol), spec.share, new Rng(streamSeed(seed, 'perp', venue, s.symbol))),
    ),
    spots: inSet(spec.spots).map((s) => new SpotBook(venue, s, und(s.symbol), new Rng(streamSeed(seed, 'spotbook', venue, s.symbol)))),
  };
}

/** The venue's name of the symbol's index, or null when the venue publishes none for it. */
function indexNameOf(b: VenueBooks, u: UnderlyingState): string | null {
  const base = u.params.base;
  const hasOptions = b.chains.some((c) => c.spec.symbol === u.symbol);
  let name: string | null = null;
  if (b.venue === 'deribit' && hasOptions) name = base === 'SOL' ? 'sol_usdc' : `${base.toLowerCase()}_usd`;
  if (b.venue === 'okx') name = `${base}-USD`;
  // Binance `!index@arr`: the options' underlying index per underlying that has options.
  if (b.venue === 'binance' && hasOptions) name = u.symbol;
  // Derive, Thalex, Delta, Bullish, Paradex: venues with an index channel of their own, for every coin they list something on.
  const named = VENUE_SPECS[b.venue].indexName;
  if (named && (hasOptions || b.perps.some((p) => p.spec.symbol === u.symbol))) name = named(base);
  return name;
}

/** Index prices (and Deribit's DVOL) of one venue at `now`. */
function indexEvents(b: VenueBooks, underlyings: Underlyings, now: number, out: MarketEvent[]): void {
  for (const { u } of underlyings.values()) {
    const name = indexNameOf(b, u);
    if (!name) continue;
    const ev: IndexPrice = {
      venue: b.venue,
      symbol: u.symbol,
      ts: now,
      receivedAt: now,
      id: `${b.venue}:index:${name}:${now}`,
      kind: 'index',
      name,
      value: indexPrice(u),
    };
    out.push({ type: 'index', event: ev });
    if (b.venue === 'deribit' && u.params.volIndex) {
      out.push({
        type: 'index',
        event: { ...ev, id: `${b.venue}:vol_index:${name}:${now}`, kind: 'vol_index', value: volIndexValue(u) },
      });
    }
  }
}

/** A perp's liquidations of one tick: a trickle, and a burst on the losing side after a jump. */
function liquidationEvents(
  b: VenueBooks,
  perp: PerpBook,
  u: UnderlyingState,
  now: number,
  flow: FlowSettings,
  act: number,
  dtSec: number,
  out: MarketEvent[],
): void {
  let liqs = b.rng.poisson(LIQ_PER_SEC * b.share * act * dtSec);
  let side: 'long' | 'short' = b.rng.next() < 0.5 ? 'long' : 'short';
  if (Math.abs(u.lastJump) > 0.003) {
    liqs += b.rng.poisson((Math.abs(u.lastJump) / 0.003) * 4 * b.share);
    side = u.lastJump < 0 ? 'long' : 'short';
  }
  for (let i = 0; i < liqs; i++) liquidationPrint(b, perp, now, flow, side, out);
}

/** One liquidation; Deribit / Paradex have no liquidation channel: it prints as a trade flagged as one. */
function liquidationPrint(
  b: VenueBooks,
  perp: PerpBook,
  now: number,
  flow: FlowSettings,
  side: 'long' | 'short',
  out: MarketEvent[],
): void {
  const { trade, liquidation } = perp.liquidation(now, b.ids, flow, side);
  if (b.liquidations === 'as_trade') out.push({ type: 'perp_trade', event: trade });
  out.push({ type: 'liquidation', event: liquidation });
}

/** The seeded market model behind createSandboxMarket: the clock, the underlyings and every venue's books. */
class SimulatedMarket implements SandboxMarket {
  readonly tickMs: number;
  readonly venues: readonly SandboxVenue[];
  readonly symbols: readonly MarketSymbol[];
  readonly ledger: TradeLedger;
  readonly #startMs: number;
  readonly #tickerIntervalMs: number;
  readonly #statsIntervalMs: number;
  readonly #flow: FlowSettings;
  readonly #commonRng: Rng;
  readonly #underlyings: Underlyings;
  readonly #books: readonly VenueBooks[];
  #now: number;
  #carry = 0;

  constructor(opts: SandboxMarketOptions) {
    this.ledger = new TradeLedger(opts.ledgerCapacity);
    this.symbols = opts.symbols ?? SYMBOLS;
    this.venues = opts.venues ?? SANDBOX_VENUES;
    this.tickMs = opts.tickMs ?? 100;
    this.#tickerIntervalMs = opts.tickerIntervalMs ?? 5000;
    this.#statsIntervalMs = opts.statsIntervalMs ?? 1000;
    this.#flow = { ...DEFAULT_FLOW, ...opts.flow };
    this.#startMs = opts.startMs;
    this.#now = opts.startMs;
    this.#commonRng = new Rng(streamSeed(opts.seed, 'market'));
    this.#underlyings = createUnderlyings(opts.seed, this.symbols);
    this.#books = this.venues.map((venue) => createVenueBooks(opts.seed, venue, this.#underlyings, this.#now));
  }

  get now(): number {
    return this.#now;
  }

  step(dtMs: number): readonly MarketEvent[] {
    this.#carry += dtMs;
    const out: MarketEvent[] = [];
    while (this.#carry >= this.tickMs) {
      this.#carry -= this.tickMs;
      for (const e of this.#tick()) out.push(e);
    }
    return out;
  }

  burst(venue: SandboxVenue, n: number, symbol?: MarketSymbol): readonly MarketEvent[] {
    const b = this.#byVenue(venue);
    const chains = b.chains.filter((c) => !symbol || c.spec.symbol === symbol);
    if (chains.length === 0) throw new Error(`no option chain on ${venue}${symbol ? ` for ${symbol}` : ''}`);
    const out: MarketEvent[] = [];
    let i = 0;
    while (out.length < n) {
      const chain = chains[i++ % chains.length];
      const t = chain?.trade(this.#now, b.ids, this.#flow);
      if (t) out.push({ type: 'option_trade', event: t });
    }
    this.ledger.recordEvents(out);
    return out;
  }

  burstLiquidations(venue: SandboxVenue, n: number): readonly MarketEvent[] {
    const b = this.#byVenue(venue);
    if (b.perps.length === 0) throw new Error(`no perp on ${venue}`);
    if (b.liquidations === 'none') throw new Error(`${venue} publishes no liquidations`);
    const out: MarketEvent[] = [];
    for (let i = 0; i < n; i++) {
      const perp = b.perps[i % b.perps.length];
      if (!perp) break;
      const side = Math.floor(i / b.perps.length) % 2 === 0 ? 'long' : 'short';
      liquidationPrint(b, perp, this.#now, this.#flow, side, out);
    }
    this.ledger.recordEvents(out);
    return out;
  }

  burstLinear(venue: SandboxVenue, n: number, market: 'perp' | 'spot'): readonly MarketEvent[] {
    const b = this.#byVenue(venue);
    const books = market === 'perp' ? b.perps : b.spots;
    if (books.length === 0) throw new Error(`no ${market} on ${venue}`);
    const out: MarketEvent[] = [];
    for (let i = 0; i < n; i++) {
      const k = i % books.length;
      if (market === 'perp') out.push({ type: 'perp_trade', event: (b.perps[k] as PerpBook).trade(this.#now, b.ids, this.#flow) });
      else out.push({ type: 'spot_trade', event: (b.spots[k] as SpotBook).trade(this.#now, b.ids) });
    }
    this.ledger.recordEvents(out);
    return out;
  }

  instruments(venue: SandboxVenue): readonly Instrument[] {
    const b = this.#byVenue(venue);
    return [
      ...b.chains.flatMap((c) => c.contracts.map((k) => c.instrument(k, k.listedAt, true))),
      ...b.perps.map((p) => linearInstrument(venue, p.spec, 'perp', this.#startMs)),
      ...b.spots.map((s) => linearInstrument(venue, s.spec, 'spot', this.#startMs)),
    ];
  }

  spot(s: MarketSymbol): number {
    return underlyingOf(this.#underlyings, s).spot;
  }

  index(s: MarketSymbol): number {
    return indexPrice(underlyingOf(this.#underlyings, s));
  }

  volIndex(s: MarketSymbol): number | null {
    const u = underlyingOf(this.#underlyings, s);
    return u.params.volIndex ? volIndexValue(u) : null;
  }

  optionQuote(venue: SandboxVenue, instrument: string): OptionQuote | null {
    for (const c of this.#byVenue(venue).chains) {
      const k = c.get(instrument);
      if (k) return c.quote(k, this.#now);
    }
    return null;
  }

  chains(venue: SandboxVenue): readonly OptionChain[] {
    return this.#byVenue(venue).chains;
  }

  perps(venue: SandboxVenue): readonly PerpBook[] {
    return this.#byVenue(venue).perps;
  }

  #byVenue(venue: SandboxVenue): VenueBooks {
    const b = this.#books.find((x) => x.venue === venue);
    if (!b) throw new Error(`venue ${venue} not in this sandbox`);
    return b;
  }

  /** One model tick: the underlyings move, then every venue's listings, trades, tickers and stats. */
  #tick(): MarketEvent[] {
    this.#now += this.tickMs;
    const zCommon = this.#commonRng.normal();
    for (const { u, rng } of this.#underlyings.values()) stepUnderlying(u, rng, zCommon, this.tickMs);
    const out: MarketEvent[] = [];
    const statsDue = Math.floor(this.#now / this.#statsIntervalMs) !== Math.floor((this.#now - this.tickMs) / this.#statsIntervalMs);
    for (const b of this.#books) {
      if (statsDue) indexEvents(b, this.#underlyings, this.#now, out);
      for (const chain of b.chains) this.#optionTick(b, chain, out);
      for (const perp of b.perps) this.#perpTick(b, perp, statsDue, out);
      for (const spot of b.spots) this.#spotTick(b, spot, out);
    }
    this.ledger.recordEvents(out);
    return out;
  }

  /** A chain's roll (new listings), its Poisson option trades and its slice of the ticker round. */
  #optionTick(b: VenueBooks, chain: OptionChain, out: MarketEvent[]): void {
    const now = this.#now;
    for (const ins of chain.roll(now)) out.push({ type: 'instrument', event: ins });
    const rate = OPTION_TRADES_PER_SEC * b.share * SYMBOL_PARAMS[chain.spec.symbol].activity * this.#flow.activity;
    const n = b.rng.poisson(rate * (this.tickMs / 1000));
    for (let i = 0; i < n; i++) {
      const t = chain.trade(now, b.ids, this.#flow);
      if (t) out.push({ type: 'option_trade', event: t });
    }
    for (const tk of chain.tickerSlice(now, this.tickMs, this.#tickerIntervalMs)) out.push({ type: 'option_ticker', event: tk });
  }

  /** A perp's funding/OI evolution, its Poisson trades, its liquidations (where the venue has them) and stats. */
  #perpTick(b: VenueBooks, perp: PerpBook, statsDue: boolean, out: MarketEvent[]): void {
    const dtSec = this.tickMs / 1000;
    perp.evolve(dtSec);
    const act = SYMBOL_PARAMS[perp.spec.symbol].activity * this.#flow.activity;
    const n = b.rng.poisson(PERP_TRADES_PER_SEC * b.share * act * dtSec);
    for (let i = 0; i < n; i++) out.push({ type: 'perp_trade', event: perp.trade(this.#now, b.ids, this.#flow) });
    const u = underlyingOf(this.#underlyings, perp.spec.symbol);
    if (b.liquidations !== 'none') liquidationEvents(b, perp, u, this.#now, this.#flow, act, dtSec, out);
    if (statsDue) out.push({ type: 'perp_stats', event: perp.stats(this.#now) });
  }

  #spotTick(b: VenueBooks, spot: SpotBook, out: MarketEvent[]): void {
    const act = SYMBOL_PARAMS[spot.spec.symbol].activity * this.#flow.activity;
    const n = b.rng.poisson(SPOT_TRADES_PER_SEC * b.share * act * (this.tickMs / 1000));
    for (let i = 0; i < n; i++) out.push({ type: 'spot_trade', event: spot.trade(this.#now, b.ids) });
  }
}

export function createSandboxMarket(opts: SandboxMarketOptions): SandboxMarket {
  return new SimulatedMarket(opts);
}
