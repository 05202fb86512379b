/** Black-76 on the forward, r = 0 (the venues' own convention for crypto options). Pure. */

import type { OptionType } from '../../schemas/events.ts';

export const YEAR_MS = 365 * 24 * 3600 * 1000;

export function normPdf(x: number): number {
  return Math.exp(-0.5 * x * x) / Math.sqrt(2 * Math.PI);
}

/** Abramowitz-Stegun 26.2.17 style via erf (|error| < 1.5e-7). */
export function normCdf(x: number): number {
  const t = 1 / (1 + 0.3275911 * (Math.abs(x) / Math.SQRT2));
  const y =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) *
      t *
      Math.exp(-(x * x) / 2);
  return x >= 0 ? 0.5 * (1 + y) : 0.5 * (1 - y);
}

export interface Greeks {
  /** USD per coin. */
  readonly price: number;
  readonly delta: number;
  /** Per USD move of the forward. */
  readonly gamma: number;
  /** USD per 1 vol point (0.01). */
  readonly vega: number;
  /** USD per calendar day. */
  readonly theta: number;
}

export function black76(type: OptionType, forward: number, strike: number, tYears: number, vol: number): Greeks {
  const t = Math.max(tYears, 1e-9);
  const sd = vol * Math.sqrt(t);
  const d1 = (Math.log(forward / strike) + 0.5 * sd * sd) / sd;
  const d2 = d1 - sd;
  const pdf = normPdf(d1);
  const call = forward * normCdf(d1) - strike * normCdf(d2);
  const price = type === 'call' ? call : call - forward + strike;
  const delta = type === 'call' ? normCdf(d1) : normCdf(d1) - 1;
  const gamma = pdf / (forward * sd);
  const vegaYear = forward * pdf * Math.sqrt(t);
  const thetaYear = (-forward * pdf * vol) / (2 * Math.sqrt(t));
  return { price: Math.max(price, 0), delta, gamma, vega: vegaYear / 100, theta: thetaYear / 365 };
}
