/**
 * When a scenario's comparison with the ledger is final, and which trades came late. After the flood the harness
 * waits for the raw writers to report caught up (committed offsets within a batch of the log end), then compares the
 * stored trades with the ledger every few seconds:
 * - final when nothing is missing, or when the missing count has not changed for SETTLE_STABLE_MS (a stalled consumer
 *   that resumes within that time still delivers), or at SETTLE_DEADLINE_MS;
 * - `late`: trades still missing LATE_AFTER_MS after the first comparison and stored before the final one (stored, so
 *   not lost, but well after the raw writers reported caught up: a freshness fault to look at; within LATE_AFTER_MS
 *   is the last batch the "caught up" bound allows); `lateSeconds`: from the first comparison to the last one that
 *   found fewer missing.
 * Pure.
 */

export const SETTLE_STABLE_MS = 30_000;
export const SETTLE_DEADLINE_MS = 240_000;
/** Trades stored within this long of the first comparison are the raw writers' last batches, not late. */
export const LATE_AFTER_MS = 10_000;

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

export function settled(
  samples: readonly LostSample[],
  opts = { stableMs: SETTLE_STABLE_MS, deadlineMs: SETTLE_DEADLINE_MS, lateAfterMs: LATE_AFTER_MS },
): Settled {
  const first = samples[0];
  const last = samples[samples.length - 1];
  if (first === undefined || last === undefined) return { final: false, lost: 0, late: 0, lateSeconds: null };
  let changedAt = first.atMs;
  let lastDrop: number | null = null;
  // Missing once the last batches had their time: the last comparison before LATE_AFTER_MS (the first one at least).
  let settledLost = first.lost;
  for (let i = 1; i < samples.length; i++) {
    const [p, s] = [samples[i - 1] as LostSample, samples[i] as LostSample];
    if (s.lost !== p.lost) changedAt = s.atMs;
    if (s.atMs - first.atMs <= opts.lateAfterMs) settledLost = s.lost;
    else if (s.lost < p.lost) lastDrop = s.atMs;
  }
  const final = last.lost === 0 || last.atMs - changedAt >= opts.stableMs || last.atMs - first.atMs >= opts.deadlineMs;
  return {
    final,
    lost: last.lost,
    late: Math.max(0, settledLost - last.lost),
    lateSeconds: lastDrop === null ? null : (lastDrop - first.atMs) / 1000,
  };
}
