/**
 * Dealer greek exposures in USD, one unit per greek (processors/README.md "Greek exposures").
 * Per contract, with q the dealer-signed quantity in coins (std or flow, dealer.ts), S the common spot and the
 * Black-76 greeks of black76.ts (r = 0, on the expiry's forward F, USD per coin):
 *   delta  q·Δ·S               USD of underlying the dealer is long (delta notional)
 *   gamma  q·Γ·S²·0.01          USD of dealer delta change per 1% spot move (= GEX, gex.ts)
 *   vega   q·vega               USD of dealer P&L per +1 vol point
 *   theta  q·θ                  USD of dealer P&L per calendar day
 *   vanna  q·(∂Δ/∂σ/100)·S      USD of dealer delta change per +1 vol point
 *   charm  q·(−∂Δ/∂T/365)·S     USD of dealer delta change per calendar day passing
 * Signs are the dealer's: a positive value is exposure the dealer holds (long delta, long gamma, ...).
 */
import type { OptionType } from '#schemas/events.ts';
import { charm, delta, gamma, theta, vanna, vega } from './black76.ts';
import { contractGex } from './gex.ts';

export const GREEKS = ['delta', 'gamma', 'vega', 'theta', 'vanna', 'charm'] as const;
export type Greek = (typeof GREEKS)[number];

export const GREEK_UNITS: Readonly<Record<Greek, string>> = {
  delta: 'usd_delta_notional',
  gamma: 'usd_delta_per_1pct_move',
  vega: 'usd_per_vol_point',
  theta: 'usd_per_day',
  vanna: 'usd_delta_per_vol_point',
  charm: 'usd_delta_per_day',
};

export function isGreek(v: string): v is Greek {
  return (GREEKS as readonly string[]).includes(v);
}

/** The Black-76 greek of one coin (USD per coin, per the units of black76.ts). */
export function unitGreek(greek: Greek, type: OptionType, f: number, k: number, sigma: number, t: number): number {
  switch (greek) {
    case 'delta':
      return delta(type, f, k, sigma, t);
    case 'gamma':
      return gamma(f, k, sigma, t);
    case 'vega':
      return vega(f, k, sigma, t);
    case 'theta':
      return theta(f, k, sigma, t);
    case 'vanna':
      return vanna(f, k, sigma, t);
    case 'charm':
      return charm(f, k, sigma, t);
  }
}

/** Dollar exposure of a dealer-signed quantity `q` (coins) given the unit greek `g` and spot `s`. */
export function dollarExposure(greek: Greek, g: number, q: number, s: number): number {
  switch (greek) {
    case 'gamma':
      return contractGex(g, q, s);
    case 'vega':
    case 'theta':
      return g * q;
    case 'delta':
    case 'vanna':
    case 'charm':
      return g * q * s;
  }
}

/** One contract's exposure in USD, or 0 when it has no usable IV. */
export function contractExposure(
  greek: Greek,
  c: { readonly type: OptionType; readonly forward: number; readonly strike: number; readonly sigma: number | null; readonly t: number },
  q: number,
  s: number,
): number {
  if (c.sigma === null || q === 0) return 0;
  return dollarExposure(greek, unitGreek(greek, c.type, c.forward, c.strike, c.sigma, c.t), q, s);
}
