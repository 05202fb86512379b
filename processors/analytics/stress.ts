/**
 * Stress rows of a snapshot (pure): total dealer GEX (USD per 1%) under spot shocks −20 % … +20 % (5 % steps) and
 * the zero-gamma level, both read off the re-priced profile of profile.ts. The shocks are exact grid points
 * (x = −0.20 … +0.20 → index 100 + 400·x), so a stress value equals the profile value there and venue rows add up.
 */
import { GRID_MIN, GRID_STEP, findRoots } from './profile.ts';
import type { ProfileArrays } from './profile.ts';
import type { DealerModel } from './types.ts';

export const STRESS_SHOCKS: readonly number[] = [-0.2, -0.15, -0.1, -0.05, 0, 0.05, 0.1, 0.15, 0.2];
export const STRESS_SHOCKS_PCT: readonly number[] = STRESS_SHOCKS.map((s) => Math.round(s * 100));
const STRESS_INDEX: readonly number[] = STRESS_SHOCKS.map((s) => Math.round((s - GRID_MIN) / GRID_STEP));

/** Profile values at the stress shocks. */
export function shockValues(profile: readonly number[]): number[] {
  return STRESS_INDEX.map((j) => profile[j] ?? 0);
}

/** Element-wise sum (arrays of one length; an empty list gives `length` zeros). */
export function sumArrays(arrays: readonly (readonly number[])[], length: number): number[] {
  const out = new Array<number>(length).fill(0);
  for (const a of arrays) for (let j = 0; j < length; j++) out[j] = (out[j] as number) + (a[j] ?? 0);
  return out;
}

export interface ZeroGamma {
  readonly level: number | null;
  /** Why there is no level (as `hvl_reason` of the levels). */
  readonly reason: 'positive_everywhere' | 'negative_everywhere' | 'no_gamma' | null;
}

/** The zero-gamma level (root nearest spot) of a profile, the rule of the levels' `hvl`. */
export function zeroGammaOf(values: readonly number[], slopes: readonly number[], spot: number): ZeroGamma {
  const r = findRoots(values, slopes);
  if (r.zero === null) return { level: null, reason: r.status === 'ok' ? 'no_gamma' : r.status };
  return { level: spot * (1 + r.zero.x), reason: null };
}

/** The profile arrays of one model. */
export function modelProfile(p: ProfileArrays, model: DealerModel): { values: readonly number[]; slopes: readonly number[] } {
  return model === 'flow'
    ? { values: p.profile_flow, slopes: p.profile_flow_slope }
    : { values: p.profile_std, slopes: p.profile_std_slope };
}
