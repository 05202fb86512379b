import type { MarketEvent, MarketSymbol } from '#schemas/events.ts';
import { PerpBook, SpotBook } from '../market/perps.ts';
import { Rng, streamSeed } from '../market/prng.ts';
import { VenueIds, type FlowSettings, type UnderlyingState } from '../market/state.ts';
import { SYMBOL_PARAMS } from '../market/symbols.ts';
import { stepUnderlying } from '../market/underlying-step.ts';
import { SANDBOX_VENUES, VENUE_SPECS, type LiquidationFeed, type SandboxVenue } from '../market/venues.ts';

/**
 * The backfill's fast sandbox model: linear markets only (perp and spot trades, perp stats, liquidations), N
 * trades per minute per venue book, for filling months of 1-minute history in minutes. Pure and deterministic:
 * the same seed, start and settings give the same events. It reuses the sandbox's pieces: its PRNG streams,
 * the per-symbol parameters of the spot path (GBM with Poisson jumps, log-OU vol level, 70 % common factor),
 * and the venues' PerpBook / SpotBook (prices, sizes, sides, funding OU, open interest, liquidation prints).
 * The spot path is stepped once per trade slot (60 s / N) instead of every 100 ms, so it is not the full
 * model's path for the same seed (the distribution is the same).
 *
 * Per minute, per symbol: N slots at minute + i·60 s/N (+ a few ms per venue so venues do not print on the
 * same millisecond); in each slot every perp and spot book of the symbol prints one taker trade; every perp
 * book publishes one perp_stats at the end of the minute (minute + 59.9 s); liquidations arrive as a Poisson
 * trickle (0.02/s × venue share) and in bursts on the losing side after a jump, as in the full model.
 */
export interface FastMarketOptions {
  readonly seed: number;
  /** First minute, ms UTC (floored to the minute). */
  readonly startMs: number;
  readonly symbols: readonly MarketSymbol[];
  readonly venues?: readonly SandboxVenue[];
  /** Trades per minute per venue book (>= 1). */
  readonly tradesPerMinute: number;
}

export interface FastMarket {
  /** Start of the next minute `minute()` will generate. */
  readonly now: number;
  /** The events of one minute, in time order per book. */
  minute(): MarketEvent[];
}

const MINUTE_MS = 60_000;
const FLOW: FlowSettings = { activity: 1, customerBuyBias: 0.15, openingProbability: 0.5 };
const LIQ_PER_SEC = 0.02;

interface SymbolState {
  readonly u: UnderlyingState;
  readonly rng: Rng;
  readonly perps: {
    readonly book: PerpBook;
    readonly ids: VenueIds;
    readonly rng: Rng;
    readonly offset: number;
    readonly share: number;
    readonly liquidations: LiquidationFeed;
  }[];
  readonly spots: { readonly book: SpotBook; readonly ids: VenueIds; readonly offset: number }[];
}

export function createFastMarket(opts: FastMarketOptions): FastMarket {
  const n = Math.max(1, Math.floor(opts.tradesPerMinute));
  const slotMs = MINUTE_MS / n;
  const venues = opts.venues ?? SANDBOX_VENUES;
  let now = Math.floor(opts.startMs / MINUTE_MS) * MINUTE_MS;
  const common = new Rng(streamSeed(opts.seed, 'backfill', 'market'));

  const states: SymbolState[] = opts.symbols.map((symbol) => {
    const params = SYMBOL_PARAMS[symbol];
    const u: UnderlyingState = { symbol, params, spot: params.startPrice, level: params.volLevel, lastJump: 0, lastReturn: 0 };
    const perps: SymbolState['perps'] = [];
    const spots: SymbolState['spots'] = [];
    venues.forEach((venue, vi) => {
      const spec = VENUE_SPECS[venue];
      const ids = new VenueIds(venue, new Rng(streamSeed(opts.seed, 'backfill', 'ids', venue, symbol)));
      for (const s of spec.perps.filter((p) => p.symbol === symbol)) {
        const rng = new Rng(streamSeed(opts.seed, 'backfill', 'perp', venue, symbol));
        perps.push({
          book: new PerpBook(venue, s, u, spec.share, rng),
          ids,
          rng,
          offset: vi * 3,
          share: spec.share,
          liquidations: spec.liquidations,
        });
      }
      for (const s of spec.spots.filter((p) => p.symbol === symbol)) {
        spots.push({
          book: new SpotBook(venue, s, u, new Rng(streamSeed(opts.seed, 'backfill', 'spot', venue, symbol))),
          ids,
          offset: vi * 3 + 1,
        });
      }
    });
    return { u, rng: new Rng(streamSeed(opts.seed, 'backfill', 'spot-path', symbol)), perps, spots };
  });

  /** One step of the sandbox's spot path (the underlying step of market.ts SimulatedMarket#tick) over dtMs, with a shared normal draw. */
  function evolve(s: SymbolState, zCommon: number, dtMs: number): void {
    stepUnderlying(s.u, s.rng, zCommon, dtMs);
  }

  function minute(): MarketEvent[] {
    const out: MarketEvent[] = [];
    for (let i = 0; i < n; i++) {
      const slot = now + Math.floor(i * slotMs);
      const zCommon = common.normal();
      for (const s of states) {
        evolve(s, zCommon, slotMs);
        for (const p of s.perps) {
          p.book.evolve(slotMs / 1000);
          out.push({ type: 'perp_trade', event: p.book.trade(slot + p.offset, p.ids, FLOW) });
          // Venues without a public liquidation feed (Derive, Thalex, Delta, Bullish) print none, as live.
          if (p.liquidations === 'none') continue;
          let liqs = p.rng.poisson((LIQ_PER_SEC * p.share * s.u.params.activity * slotMs) / 1000);
          let side: 'long' | 'short' = p.rng.next() < 0.5 ? 'long' : 'short';
          if (Math.abs(s.u.lastJump) > 0.003) {
            liqs += p.rng.poisson((Math.abs(s.u.lastJump) / 0.003) * 4 * p.share);
            side = s.u.lastJump < 0 ? 'long' : 'short';
          }
          for (let k = 0; k < liqs; k++) {
            const { trade, liquidation } = p.book.liquidation(slot + p.offset + 1, p.ids, FLOW, side);
            if (p.liquidations === 'as_trade') out.push({ type: 'perp_trade', event: trade });
            out.push({ type: 'liquidation', event: liquidation });
          }
        }
        for (const sp of s.spots) out.push({ type: 'spot_trade', event: sp.book.trade(slot + sp.offset, sp.ids) });
      }
    }
    for (const s of states) for (const p of s.perps) out.push({ type: 'perp_stats', event: p.book.stats(now + 59_900) });
    now += MINUTE_MS;
    return out;
  }

  return {
    get now() {
      return now;
    },
    minute,
  };
}
