import type { MarketEvent, MarketSymbol } from '#schemas/events.ts';
import { createSandboxMarket } from '../market/market.ts';
import type { SandboxVenue } from '../market/venues.ts';
import { createFastMarket } from './fast-market.ts';

/** Where backfilled events come from: one simulated minute per call. */
export interface MinuteSource {
  /** Start of the next minute. */
  readonly now: number;
  next(): readonly MarketEvent[];
}

export type BackfillModel = 'fast' | 'full';

export interface SourceOptions {
  readonly model: BackfillModel;
  readonly seed: number;
  readonly startMs: number;
  readonly symbols: readonly MarketSymbol[];
  /** Sandbox venues to simulate; default every sandbox venue. */
  readonly venues?: readonly SandboxVenue[];
  /** Fast model only. */
  readonly tradesPerMinute: number;
}

/**
 * `full`: the sandbox market model itself (every event family, options included; ~10-20 trades/s per symbol:
 * hours to a few days of history). `fast`: sandbox/history/fast-market.ts (linear markets only).
 */
export function minuteSource(o: SourceOptions): MinuteSource {
  if (o.model === 'fast') {
    const m = createFastMarket({
      seed: o.seed,
      startMs: o.startMs,
      symbols: o.symbols,
      tradesPerMinute: o.tradesPerMinute,
      ...(o.venues ? { venues: o.venues } : {}),
    });
    return {
      get now() {
        return m.now;
      },
      next: () => m.minute(),
    };
  }
  const m = createSandboxMarket({ seed: o.seed, startMs: o.startMs, symbols: o.symbols, ...(o.venues ? { venues: o.venues } : {}) });
  return {
    get now() {
      return m.now;
    },
    next: () => m.step(60_000),
  };
}
