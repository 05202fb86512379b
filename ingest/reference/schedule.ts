/**
 * Publication schedules of the reference sources (pure): `day` = every day at hour_utc; `week` = on weekday
 * (0 = Sunday) at hour_utc. The CFTC publishes on Friday 15:30 ET (weekday 5, hour_utc 21 is after it in
 * both EST and EDT); daily ETF flow tables by the next morning; 13F filings any day after a quarter end.
 */

export interface Schedule {
  readonly every: 'day' | 'week';
  readonly hour_utc: number;
  readonly weekday?: number;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The first scheduled instant strictly after `afterMs`. */
export function nextRunAt(s: Schedule, afterMs: number): number {
  const midnight = Math.floor(afterMs / DAY) * DAY;
  for (let d = 0; d <= 8; d++) {
    const at = midnight + d * DAY + s.hour_utc * HOUR;
    if (at <= afterMs) continue;
    if (s.every === 'week' && new Date(at).getUTCDay() !== (s.weekday ?? 5)) continue;
    return at;
  }
  throw new Error('unreachable: a weekly schedule repeats within 8 days');
}
