/** Hand-built chains shared by the tests. */
import type { OptionType, Venue } from '#schemas/events.ts';
import type { ChainInstrument, ChainSnapshot } from '../types.ts';

export const DAY_MS = 86_400_000;

export function inst(strike: number, type: OptionType, openInterest: number, extra: Partial<ChainInstrument> = {}): ChainInstrument {
  return {
    venue: 'deribit' as Venue,
    strike,
    expiry: 7 * DAY_MS,
    type,
    openInterest,
    markIv: 0.5,
    forward: 100_000,
    ...extra,
  };
}

/** §11.5: F = 100,000, T = 7/365, IV 50%, strikes 85k…115k. */
export function chain115(): ChainSnapshot {
  const strikes = [85_000, 90_000, 95_000, 100_000, 105_000, 110_000, 115_000];
  const callOi = [50, 120, 300, 800, 1400, 1100, 600];
  const putOi = [900, 1500, 1200, 700, 250, 80, 20];
  return {
    symbol: 'BTCUSDT',
    now: 0,
    spot: 100_000,
    perpPrice: 100_050,
    instruments: strikes.flatMap((k, i) => [inst(k, 'call', callOi[i] ?? 0), inst(k, 'put', putOi[i] ?? 0)]),
  };
}

export function chainOf(instruments: readonly ChainInstrument[], extra: Partial<ChainSnapshot> = {}): ChainSnapshot {
  return { symbol: 'BTCUSDT', now: 0, spot: 100_000, perpPrice: null, instruments, ...extra };
}
