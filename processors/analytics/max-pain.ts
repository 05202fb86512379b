/**
 * Max pain: the candidate settlement price P (a listed strike) minimising the USD intrinsic payout of all
 * open contracts, Pain(P) = Σ_calls OI·max(0, P − K) + Σ_puts OI·max(0, K − P) (OI in coins).
 * Ties → lowest strike. Null when there are no strikes or the total OI is 0.
 */

export interface MaxPain {
  readonly strike: number;
  /** Payout at `strike`, USD. */
  readonly value: number;
}

/**
 * `strikes` ascending and distinct; `callOi`/`putOi` parallel. Each candidate's payout is evaluated directly
 * (O(N²), N = listed strikes, a few hundred at most) so equal payouts compare exactly and ties resolve to the
 * lowest strike deterministically.
 */
export function maxPain(strikes: readonly number[], callOi: readonly number[], putOi: readonly number[]): MaxPain | null {
  let totalOi = 0;
  for (let i = 0; i < strikes.length; i++) totalOi += (callOi[i] ?? 0) + (putOi[i] ?? 0);
  if (strikes.length === 0 || !(totalOi > 0)) return null;
  let best: MaxPain | null = null;
  for (const p of strikes) {
    const pain = painAt(p, strikes, callOi, putOi);
    if (best === null || pain < best.value) best = { strike: p, value: pain };
  }
  return best;
}

/** Direct O(N²) payout at a settlement price (reference for tests and the exact value of a candidate). */
export function painAt(price: number, strikes: readonly number[], callOi: readonly number[], putOi: readonly number[]): number {
  let pain = 0;
  for (let i = 0; i < strikes.length; i++) {
    const k = strikes[i] ?? 0;
    if (price > k) pain += (callOi[i] ?? 0) * (price - k);
    else if (price < k) pain += (putOi[i] ?? 0) * (k - price);
  }
  return pain;
}
