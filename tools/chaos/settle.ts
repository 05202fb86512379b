/**
 * When a scenario's comparison with the ledger is final, and which trades came late. After the flood the harness
 * waits for the raw writers to report caught up (committed offsets within a batch of the log end), then compares the
 * stored trades with the ledger every few seconds:
 * - final when nothing is missing, or when the missing count has not changed for SETTLE_STABLE_MS (a stalled consumer
 *   that resumes within that time still delivers), or at SETTLE_DEADLINE_MS;
 * - `late`: trades missing at the first comparison that were stored before the final one (stored, so not lost, but
 *   after the raw writers reported caught up: a freshness fault to look at); `lateSeconds`: from the first comparison
 *   to the last one that found fewer missing.
 * Pure.
 */

export const SETTLE_STABLE_MS = 30_000;
export const SETTLE_DEADLINE_MS = 240_000;

/** One comparison: when, and how many offered trades were not stored. */
export interface LostSample {
  readonly atMs: number;
  readonly lost: number;
}

export interface Settled {
  readonly final: boolean;
  readonly lost: number;
  readonly late: number;
  readonly lateSeconds: number | null;
}

export function settled(samples: readonly LostSample[], opts = { stableMs: SETTLE_STABLE_MS, deadlineMs: SETTLE_DEADLINE_MS }): Settled {
  const first = samples[0];
  const last = samples[samples.length - 1];
  if (first === undefined || last === undefined) return { final: false, lost: 0, late: 0, lateSeconds: null };
  let changedAt = first.atMs;
  let lastDrop: number | null = null;
  for (let i = 1; i < samples.length; i++) {
    const [p, s] = [samples[i - 1] as LostSample, samples[i] as LostSample];
    if (s.lost !== p.lost) changedAt = s.atMs;
    if (s.lost < p.lost) lastDrop = s.atMs;
  }
  const final = last.lost === 0 || last.atMs - changedAt >= opts.stableMs || last.atMs - first.atMs >= opts.deadlineMs;
  return {
    final,
    lost: last.lost,
    late: Math.max(0, first.lost - last.lost),
    lateSeconds: lastDrop === null ? null : (lastDrop - first.atMs) / 1000,
  };
}
