/**
 * Seeded synthetic chains for property tests and the benchmark (pure: `now` and `seed` are inputs).
 */
import type { MarketSymbol, OptionType, Venue } from '#schemas/events.ts';
import type { ChainInstrument, ChainSnapshot } from '../types.ts';

/** mulberry32: small, fast, deterministic PRNG returning [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Fisher-Yates shuffle copy with a seeded PRNG. */
export function shuffled<T>(items: readonly T[], rand: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    const a = out[i] as T;
    out[i] = out[j] as T;
    out[j] = a;
  }
  return out;
}

export interface SyntheticChainOptions {
  readonly symbol: MarketSymbol;
  readonly now: number;
  readonly spot: number;
  readonly venues: readonly Venue[];
  /** Approximate instruments per venue. */
  readonly perVenue: number;
  readonly seed: number;
  /** Attach random dealer inventories (flow model input). */
  readonly withInventory: boolean;
  /** Base ATM IV, fraction. */
  readonly baseIv?: number;
}

const DAY = 86_400_000;

/** Expiries: next 08:00 UTC (0DTE), then +1, +2, +3 d, weeklies and monthlies out to ~9 months. */
function expiries(now: number): number[] {
  const d0 = Math.floor(now / DAY) * DAY + 8 * 3600_000;
  const first = d0 > now ? d0 : d0 + DAY;
  const offsets = [0, 1, 2, 3, 7, 14, 21, 35, 63, 91, 182, 273];
  return offsets.map((o) => first + o * DAY);
}

export function syntheticChain(o: SyntheticChainOptions): ChainSnapshot {
  const rand = prng(o.seed);
  const baseIv = o.baseIv ?? 0.55;
  const exps = expiries(o.now);
  const instruments: ChainInstrument[] = [];
  const perExpiry = Math.max(2, Math.round(o.perVenue / exps.length / 2));
  for (const venue of o.venues) {
    for (const expiry of exps) {
      const t = (expiry - o.now) / (365 * DAY);
      const forward = o.spot * (1 + 0.08 * t) * (1 + (rand() - 0.5) * 0.0004);
      const width = Math.max(0.04, 2.2 * baseIv * Math.sqrt(t));
      const step = (o.spot * 2 * width) / perExpiry;
      const mag = 10 ** Math.floor(Math.log10(step));
      const niceStep = Math.max(mag, Math.round(step / mag) * mag);
      const atm = Math.round(forward / niceStep) * niceStep;
      const half = Math.floor(perExpiry / 2);
      for (let s = -half; s < perExpiry - half; s++) {
        const strike = atm + s * niceStep;
        if (strike <= 0) continue;
        const m = Math.log(strike / forward);
        const iv = baseIv * (1 - 0.25 * m + 0.9 * m * m) * (1 + 0.05 / Math.sqrt(t * 12 + 0.1)) * (0.98 + 0.04 * rand());
        for (const type of ['call', 'put'] as OptionType[]) {
          const oi = Math.round(Math.exp(rand() * 6) * 10) / 10;
          const missing = rand() < 0.01;
          const inv = o.withInventory ? (rand() - 0.55) * 2 * oi : undefined;
          instruments.push({
            venue,
            strike,
            expiry,
            type,
            openInterest: oi,
            markIv: missing ? null : iv,
            forward,
            ...(inv !== undefined ? { dealerInventory: inv } : {}),
          });
        }
      }
    }
  }
  return { symbol: o.symbol, now: o.now, spot: o.spot, perpPrice: o.spot * 1.0002, instruments };
}
