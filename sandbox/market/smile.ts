import type { SymbolParams } from './symbols.ts';

/**
 * Volatility surface: ATM term structure scaled by the current vol level, times a quadratic smile in standardized
 * log-moneyness x = ln(K/F) / sqrt(T):  sigma = atm(T) * (1 + skew*x + curvature*x^2), clamped. Pure.
 */
export function atmVol(level: number, tYears: number): number {
  // Mild contango: short-dated ~0.88x, long-dated ~1.06x of the 30-day level.
  return level * (0.88 + 0.18 * (1 - Math.exp(-tYears / 0.2)));
}

export function smileVol(p: SymbolParams, level: number, forward: number, strike: number, tYears: number): number {
  const t = Math.max(tYears, 1 / (365 * 24));
  const x = Math.log(strike / forward) / Math.sqrt(t);
  const atm = atmVol(level, t);
  const mult = 1 + p.skew * x + p.curvature * x * x;
  return Math.min(atm * 3, Math.max(atm * 0.6, atm * mult));
}

/** A "nice" strike step close to the target (1, 2, 2.5, 5 × 10^k). */
export function niceStep(target: number): number {
  const exp = Math.floor(Math.log10(target));
  const f = target / 10 ** exp;
  const m = f < 1.5 ? 1 : f < 2.25 ? 2 : f < 3.5 ? 2.5 : f < 7.5 ? 5 : 10;
  return Number((m * 10 ** exp).toPrecision(6));
}

/** Strike grid around the forward: step ~ F*sigma*sqrt(T)/4, `each` strikes on each side of the ATM strike. */
export function strikeGrid(forward: number, vol: number, tYears: number, each: number): readonly number[] {
  const step = niceStep((forward * vol * Math.sqrt(Math.max(tYears, 1 / 365))) / 4);
  const atm = Math.round(forward / step) * step;
  const out: number[] = [];
  for (let i = -each; i <= each; i++) {
    const k = Number((atm + i * step).toPrecision(10));
    if (k > 0) out.push(k);
  }
  return out;
}
