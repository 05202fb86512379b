/**
 * Expected move: S·exp(±z·σ·√τ), z ∈ {1, 2}, τ in years (365-day). σ = ATM IV at the horizon:
 * - per expiry: IV at K = F, linear in strike between the bracketing strikes (flat beyond the listed range);
 *   the IV at a strike is the mean of the call and put mark IVs present there;
 * - across expiries: linear interpolation of total variance σ²T between the bracketing expiries; horizon
 *   shorter than the front expiry → flat σ of the front; longer than the last → flat σ of the last.
 */

export const EXPECTED_MOVE_HORIZON_YEARS = 1 / 365;

export interface SmilePoint {
  readonly strike: number;
  readonly iv: number;
}

/** ATM IV at K = F from smile points (any order; duplicate strikes averaged). Null when empty. */
export function atmIv(points: readonly SmilePoint[], forward: number): number | null {
  const byStrike = new Map<number, { sum: number; n: number }>();
  for (const p of points) {
    if (!(p.iv > 0) || !Number.isFinite(p.iv)) continue;
    const e = byStrike.get(p.strike);
    if (e === undefined) byStrike.set(p.strike, { sum: p.iv, n: 1 });
    else {
      e.sum += p.iv;
      e.n++;
    }
  }
  const pts = [...byStrike.entries()].map(([k, e]) => ({ k, iv: e.sum / e.n })).sort((a, b) => a.k - b.k);
  const first = pts[0];
  const last = pts[pts.length - 1];
  if (first === undefined || last === undefined) return null;
  if (forward <= first.k) return first.iv;
  if (forward >= last.k) return last.iv;
  for (let i = 1; i < pts.length; i++) {
    const hi = pts[i];
    const lo = pts[i - 1];
    if (hi === undefined || lo === undefined) continue;
    if (forward <= hi.k) return lo.iv + ((hi.iv - lo.iv) * (forward - lo.k)) / (hi.k - lo.k);
  }
  return last.iv;
}

export interface TermPoint {
  /** Years to expiry (> 0). */
  readonly t: number;
  /** ATM IV of the expiry. */
  readonly iv: number;
}

/** σ at horizon τ by linear interpolation in total variance. Null when there is no term point. */
export function atmVolAtHorizon(term: readonly TermPoint[], tau: number): number | null {
  const pts = term.filter((p) => p.t > 0 && p.iv > 0 && Number.isFinite(p.iv)).sort((a, b) => a.t - b.t);
  const first = pts[0];
  const last = pts[pts.length - 1];
  if (first === undefined || last === undefined) return null;
  if (tau <= first.t) return first.iv;
  if (tau >= last.t) return last.iv;
  for (let i = 1; i < pts.length; i++) {
    const hi = pts[i];
    const lo = pts[i - 1];
    if (hi === undefined || lo === undefined) continue;
    if (tau <= hi.t) {
      const w0 = lo.iv * lo.iv * lo.t;
      const w1 = hi.iv * hi.iv * hi.t;
      const w = w0 + ((w1 - w0) * (tau - lo.t)) / (hi.t - lo.t);
      return Math.sqrt(w / tau);
    }
  }
  return last.iv;
}

export interface ExpectedMove {
  readonly upper_1sd: number;
  readonly lower_1sd: number;
  readonly upper_2sd: number;
  readonly lower_2sd: number;
}

/** Band S·exp(±z·σ·√τ) for z = 1, 2. */
export function expectedMoveBand(spot: number, sigma: number, tau: number): ExpectedMove {
  const m = sigma * Math.sqrt(tau);
  return {
    upper_1sd: spot * Math.exp(m),
    lower_1sd: spot * Math.exp(-m),
    upper_2sd: spot * Math.exp(2 * m),
    lower_2sd: spot * Math.exp(-2 * m),
  };
}
