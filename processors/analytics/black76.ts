/**
 * Black-76 greeks with r = 0 on the expiry's forward (methodology §9). All greeks are USD per 1 coin of
 * underlying: gamma per $1 move of F, vega in $ per vol point, theta in $ per calendar day (/365).
 */
import type { OptionType } from '#schemas/events.ts';
import { normCdf, normPdf } from './normal.ts';

export const SECONDS_PER_YEAR = 365 * 86_400;
export const MS_PER_YEAR = SECONDS_PER_YEAR * 1000;
/** T floor for tiny positive T: 1 hour = 1/8760 year. */
export const MIN_T_YEARS = 1 / 8760;

/** Year fraction (ACT/365, seconds based) from `now` to `expiry`, both ms UTC. May be <= 0. */
export function yearFraction(expiryMs: number, nowMs: number): number {
  return (expiryMs - nowMs) / MS_PER_YEAR;
}

/** T used for pricing: null when the instrument is expired (T <= 0), else max(T, 1 h). */
export function pricingT(expiryMs: number, nowMs: number): number | null {
  const t = yearFraction(expiryMs, nowMs);
  if (!(t > 0)) return null;
  return t < MIN_T_YEARS ? MIN_T_YEARS : t;
}

/** d1 = [ln(F/K) + σ²T/2] / (σ√T). */
export function d1(f: number, k: number, sigma: number, t: number): number {
  const v = sigma * Math.sqrt(t);
  return (Math.log(f / k) + 0.5 * v * v) / v;
}

/** Γ = φ(d1)/(F σ √T). Same for calls and puts. */
export function gamma(f: number, k: number, sigma: number, t: number): number {
  const v = sigma * Math.sqrt(t);
  const x = (Math.log(f / k) + 0.5 * v * v) / v;
  return normPdf(x) / (f * v);
}

/** Δ_call = N(d1), Δ_put = N(d1) − 1. */
export function delta(type: OptionType, f: number, k: number, sigma: number, t: number): number {
  const n = normCdf(d1(f, k, sigma, t));
  return type === 'call' ? n : n - 1;
}

/** Vega per 1 vol point: F φ(d1) √T / 100. Same for calls and puts. */
export function vega(f: number, k: number, sigma: number, t: number): number {
  return (f * normPdf(d1(f, k, sigma, t)) * Math.sqrt(t)) / 100;
}

/** Theta per calendar day (r = 0): −F φ(d1) σ / (2√T) / 365. Same for calls and puts. */
export function theta(f: number, k: number, sigma: number, t: number): number {
  return -(f * normPdf(d1(f, k, sigma, t)) * sigma) / (2 * Math.sqrt(t)) / 365;
}

export interface Greeks {
  readonly delta: number;
  readonly gamma: number;
  readonly vega: number;
  readonly theta: number;
}

export function greeks(type: OptionType, f: number, k: number, sigma: number, t: number): Greeks {
  const sqrtT = Math.sqrt(t);
  const v = sigma * sqrtT;
  const x = (Math.log(f / k) + 0.5 * v * v) / v;
  const pdf = normPdf(x);
  const n = normCdf(x);
  return {
    delta: type === 'call' ? n : n - 1,
    gamma: pdf / (f * v),
    vega: (f * pdf * sqrtT) / 100,
    theta: -(f * pdf * sigma) / (2 * sqrtT) / 365,
  };
}

/** d2 = d1 − σ√T. */
export function d2(f: number, k: number, sigma: number, t: number): number {
  return d1(f, k, sigma, t) - sigma * Math.sqrt(t);
}

/**
 * Vanna per 1 vol point: ∂Δ/∂σ / 100 = −φ(d1)·d2 / σ / 100 (= ∂vega/∂F). Same for calls and puts.
 * Positive for K above the forward (d2 < 0), negative below.
 */
export function vanna(f: number, k: number, sigma: number, t: number): number {
  const x = d1(f, k, sigma, t);
  return (-normPdf(x) * (x - sigma * Math.sqrt(t))) / sigma / 100;
}

/**
 * Charm per calendar day: the change of Δ as one day passes with F and σ fixed,
 * −∂Δ/∂T / 365 = φ(d1)·d2 / (2T) / 365 (r = 0, so the same for calls and puts).
 */
export function charm(f: number, k: number, sigma: number, t: number): number {
  const x = d1(f, k, sigma, t);
  return (normPdf(x) * (x - sigma * Math.sqrt(t))) / (2 * t) / 365;
}

/** Undiscounted Black-76 price (r = 0), USD per coin: call F·N(d1) − K·N(d2), put K·N(−d2) − F·N(−d1). */
export function price(type: OptionType, f: number, k: number, sigma: number, t: number): number {
  const x = d1(f, k, sigma, t);
  const y = x - sigma * Math.sqrt(t);
  return type === 'call' ? f * normCdf(x) - k * normCdf(y) : k * normCdf(-y) - f * normCdf(-x);
}
