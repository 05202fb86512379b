/**
 * Re-priced total-GEX profile over a spot grid and its roots (zero gamma / flip zones).
 *
 * G(x) = Σ_i q_i · Γ(F_i·(1+x), K_i, σ_i, T_i) · (S·(1+x))² · 0.01, x ∈ [−25%, +25%] step 0.25% (201 points).
 * IV and quantities are held fixed (sticky strike). With u = 1+x, v = σ√T, d = (ln(F/K) + v²/2 + ln u)/v:
 *   G(x)  = 0.01·S²·u · Σ q·φ(d)/(F·v)
 *   G'(x) = 0.01·S²   · Σ q·φ(d)/(F·v)·(1 − d/v)
 * Both are linear in the contracts, so venue profiles (values and slopes) add up. Roots are refined by
 * bisection on the cubic Hermite interpolant of (G, G') in the bracketing cell, which is exact to the
 * representation stored per venue (so a venue filter reproduces the full computation bit for bit). The
 * Hermite error is O(h⁴·G⁗); for the §11.5 chain it moves the root by < $0.001.
 */
import { INV_SQRT_2PI } from './normal.ts';

export const GRID_MIN = -0.25;
export const GRID_STEP = 0.0025;
export const GRID_POINTS = 201;
const GRID_HALF = (GRID_POINTS - 1) / 2;
/** Bisection stops when the bracket is narrower than this (requirement: < 1e-6). */
export const ROOT_TOL_X = 1e-9;

/** Grid x values x_j = (j − 100)/400, correctly rounded, x_100 = 0 exactly. */
export const GRID_X: readonly number[] = Array.from({ length: GRID_POINTS }, (_, j) => (j - GRID_HALF) / 400);
const GRID_LOG_U: readonly number[] = GRID_X.map((x) => Math.log1p(x));

/** Per-contract constants for the profile loop. */
export interface ProfileTerm {
  /** ln(F/K) + v²/2 */
  readonly a: number;
  /** 1/v, v = σ√T */
  readonly invV: number;
  /** q_std / (√(2π)·F·v) */
  readonly wStd: number;
  /** q_flow / (√(2π)·F·v) */
  readonly wFlow: number;
}

export function profileTerm(f: number, k: number, sigma: number, t: number, qStd: number, qFlow: number): ProfileTerm {
  const v = sigma * Math.sqrt(t);
  const c = INV_SQRT_2PI / (f * v);
  return { a: Math.log(f / k) + 0.5 * v * v, invV: 1 / v, wStd: qStd * c, wFlow: qFlow * c };
}

/** Mutable accumulators of Σ q·φ(d)/(F v) and Σ q·φ(d)/(F v)·(1 − d/v), per model, per grid point. */
export interface ProfileAccumulator {
  readonly std: Float64Array;
  readonly stdSlope: Float64Array;
  readonly flow: Float64Array;
  readonly flowSlope: Float64Array;
}

export function newAccumulator(): ProfileAccumulator {
  return {
    std: new Float64Array(GRID_POINTS),
    stdSlope: new Float64Array(GRID_POINTS),
    flow: new Float64Array(GRID_POINTS),
    flowSlope: new Float64Array(GRID_POINTS),
  };
}

/** Add one contract to an accumulator (the hot loop: one exp per grid point). */
export function accumulate(acc: ProfileAccumulator, term: ProfileTerm): void {
  const { a, invV, wStd, wFlow } = term;
  const { std, stdSlope, flow, flowSlope } = acc;
  const hasFlow = wFlow !== 0;
  for (let j = 0; j < GRID_POINTS; j++) {
    const d = (a + (GRID_LOG_U[j] as number)) * invV;
    const e = Math.exp(-0.5 * d * d);
    if (e === 0) continue;
    const m = 1 - d * invV;
    std[j] = (std[j] as number) + wStd * e;
    stdSlope[j] = (stdSlope[j] as number) + wStd * e * m;
    if (hasFlow) {
      flow[j] = (flow[j] as number) + wFlow * e;
      flowSlope[j] = (flowSlope[j] as number) + wFlow * e * m;
    }
  }
}

export interface ProfileArrays {
  /** G(x_j), USD per 1% */
  readonly profile_std: readonly number[];
  readonly profile_std_slope: readonly number[];
  readonly profile_flow: readonly number[];
  readonly profile_flow_slope: readonly number[];
}

/** Scale accumulated sums to USD per 1% (values) and USD per 1% per unit x (slopes). */
export function finishProfile(acc: ProfileAccumulator, s: number): ProfileArrays {
  const k = 0.01 * s * s;
  const val = (src: Float64Array): number[] => GRID_X.map((x, j) => k * (1 + x) * (src[j] as number));
  const slope = (src: Float64Array): number[] => GRID_X.map((_, j) => k * (src[j] as number));
  return {
    profile_std: val(acc.std),
    profile_std_slope: slope(acc.stdSlope),
    profile_flow: val(acc.flow),
    profile_flow_slope: slope(acc.flowSlope),
  };
}

export function zeroProfile(): ProfileArrays {
  const z = (): number[] => new Array<number>(GRID_POINTS).fill(0);
  return { profile_std: z(), profile_std_slope: z(), profile_flow: z(), profile_flow_slope: z() };
}

/** Element-wise sum of profile arrays in the given order. */
export function sumProfiles(parts: readonly ProfileArrays[]): ProfileArrays {
  const out = zeroProfile() as { [K in keyof ProfileArrays]: number[] };
  for (const p of parts) {
    for (const key of ['profile_std', 'profile_std_slope', 'profile_flow', 'profile_flow_slope'] as const) {
      const dst = out[key];
      const src = p[key];
      for (let j = 0; j < GRID_POINTS; j++) dst[j] = (dst[j] as number) + (src[j] ?? 0);
    }
  }
  return out;
}

export type FlipDirection = 'neg_to_pos' | 'pos_to_neg';
export type ProfileStatus = 'ok' | 'positive_everywhere' | 'negative_everywhere' | 'no_gamma';

export interface ProfileRoot {
  /** Root in x (fraction of spot). */
  readonly x: number;
  /** Bracketing grid x values. */
  readonly lowerX: number;
  readonly upperX: number;
  /** As spot rises through the root. */
  readonly direction: FlipDirection;
}

export interface ProfileRoots {
  readonly status: ProfileStatus;
  readonly roots: readonly ProfileRoot[];
  /** Root nearest x = 0 (tie: the lower one); null unless status is ok. */
  readonly zero: ProfileRoot | null;
}

/** Cubic Hermite value at t ∈ [0,1] of a cell of width h. */
function hermite(g0: number, d0: number, g1: number, d1: number, h: number, t: number): number {
  const t2 = t * t;
  const t3 = t2 * t;
  return (2 * t3 - 3 * t2 + 1) * g0 + (t3 - 2 * t2 + t) * h * d0 + (-2 * t3 + 3 * t2) * g1 + (t3 - t2) * h * d1;
}

function refine(x0: number, x1: number, g0: number, d0: number, g1: number, d1: number): number {
  const h = x1 - x0;
  let lo = 0;
  let hi = 1;
  const neg0 = g0 < 0;
  const tol = ROOT_TOL_X / h;
  while (hi - lo > tol) {
    const mid = 0.5 * (lo + hi);
    const gm = hermite(g0, d0, g1, d1, h, mid);
    if (gm === 0) return x0 + mid * h;
    if (gm < 0 === neg0) lo = mid;
    else hi = mid;
  }
  return x0 + 0.5 * (lo + hi) * h;
}

/**
 * Every sign change of the profile. Grid points with an exact 0 (underflowed wings, empty scope) carry no
 * sign: a change between the last non-zero point p and the next non-zero point j is a root; if j = p+1 it is
 * refined by Hermite bisection, otherwise (a run of exact zeros between) the root is the middle of the run.
 * A touch (same sign on both sides of zeros) is not a flip.
 */
export function findRoots(values: readonly number[], slopes: readonly number[]): ProfileRoots {
  const roots: ProfileRoot[] = [];
  let p = -1;
  let anyPos = false;
  let anyNeg = false;
  for (let j = 0; j < values.length; j++) {
    const g = values[j] ?? 0;
    if (g === 0 || Number.isNaN(g)) continue;
    if (g > 0) anyPos = true;
    else anyNeg = true;
    if (p >= 0) {
      const gp = values[p] ?? 0;
      if (gp < 0 !== g < 0) {
        const x0 = GRID_X[p] ?? 0;
        const x1 = GRID_X[j] ?? 0;
        const x = j === p + 1 ? refine(x0, x1, gp, slopes[p] ?? 0, g, slopes[j] ?? 0) : 0.5 * ((GRID_X[p + 1] ?? 0) + (GRID_X[j - 1] ?? 0));
        roots.push({ x, lowerX: x0, upperX: x1, direction: gp < 0 ? 'neg_to_pos' : 'pos_to_neg' });
      }
    }
    p = j;
  }
  let zero: ProfileRoot | null = null;
  for (const r of roots) if (zero === null || Math.abs(r.x) < Math.abs(zero.x)) zero = r;
  const status: ProfileStatus = roots.length > 0 ? 'ok' : anyPos ? 'positive_everywhere' : anyNeg ? 'negative_everywhere' : 'no_gamma';
  return { status, roots, zero };
}

/**
 * Exact (non-interpolated) profile value at any x for a list of terms; used by tests and diagnostics to
 * check the Hermite refinement against true bisection.
 */
export function exactProfileValue(terms: readonly ProfileTerm[], s: number, x: number, model: 'std' | 'flow'): number {
  const lu = Math.log1p(x);
  let sum = 0;
  for (const t of terms) {
    const d = (t.a + lu) * t.invV;
    sum += (model === 'std' ? t.wStd : t.wFlow) * Math.exp(-0.5 * d * d);
  }
  return 0.01 * s * s * (1 + x) * sum;
}
