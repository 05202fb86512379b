/**
 * Which state tables a roll-up reads (pure). The market states exist at three resolutions (migrations 020 and 022):
 * `*_1m`, `*_1h` and `*_1d`, every bucket aligned to UTC. An interval is read from the coarsest table whose bucket
 * divides it, so each of its buckets is a whole number of table buckets: 1m/5m/15m/30m from 1m, 1h/4h from 1h,
 * 1d from 1d. The answer is the same from every table that divides the interval (the states merge exactly).
 */

export const TIERS = ['1m', '1h', '1d'] as const;
export type Tier = (typeof TIERS)[number];

export const TIER_MINUTES: Readonly<Record<Tier, number>> = { '1m': 1, '1h': 60, '1d': 1440 };

/** The coarsest tier whose bucket divides `intervalMinutes` (1m divides every whole number of minutes). */
export function tierFor(intervalMinutes: number): Tier {
  let best: Tier = '1m';
  for (const t of TIERS) if (intervalMinutes % TIER_MINUTES[t] === 0) best = t;
  return best;
}

/** True when the tier's bucket divides the interval (a read from it is exact). */
export function divides(tier: Tier, intervalMinutes: number): boolean {
  return intervalMinutes % TIER_MINUTES[tier] === 0;
}
