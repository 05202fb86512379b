import { MS_PER_YEAR as YEAR_MS } from '#processors/analytics/black76.ts';
import type { Rng } from './prng.ts';
import type { UnderlyingState } from './state.ts';

/**
 * One step of an underlying's price and vol level over `dtMs`: GBM with a shared market factor (`zCommon`,
 * correlation 0.7), Poisson jumps, and a log-OU vol level that jumps lift. Shared by the live sandbox model and the
 * backfill's fast model so both draw the same path from the same seed. Random draws, in order: the idiosyncratic
 * normal, the jump count, one normal per jump, the vol-level normal.
 */
export function stepUnderlying(u: UnderlyingState, rng: Rng, zCommon: number, dtMs: number): void {
  const p = u.params;
  const dt = dtMs / YEAR_MS;
  const z = 0.7 * zCommon + Math.sqrt(1 - 0.49) * rng.normal();
  const sigma = u.level * 0.9;
  const jumps = rng.poisson((p.jumpsPerDay * dtMs) / 86_400_000);
  let jump = 0;
  for (let i = 0; i < jumps; i++) jump += p.jumpSd * rng.normal();
  const r = -0.5 * sigma * sigma * dt + sigma * Math.sqrt(dt) * z + jump;
  u.spot *= Math.exp(r);
  u.lastJump = jump;
  u.lastReturn = r;
  // Vol level: log-OU towards its long-run level, jumps lift it.
  const lnL = Math.log(u.level) + 6 * (Math.log(p.volLevel) - Math.log(u.level)) * dt + p.volOfVol * Math.sqrt(dt) * rng.normal();
  u.level = Math.min(p.volLevel * 3, Math.max(p.volLevel * 0.4, Math.exp(lnL) * (1 + Math.abs(jump) * 3)));
}
