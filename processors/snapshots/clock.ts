/**
 * Wall-clock-aligned tick scheduling with an injectable clock. Ticks are the multiples of the interval since
 * the epoch (30 s → hh:mm:00 and hh:mm:30 UTC), so every replica and every restart agrees on the instants.
 */

export interface Clock {
  now(): number;
  /** Resolve after `ms` (or at once when aborted). */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal.aborted) return resolve();
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      signal.addEventListener('abort', done, { once: true });
    }),
};

/** The first aligned tick strictly after `nowMs`. */
export function nextAlignedTick(nowMs: number, intervalMs: number): number {
  return (Math.floor(nowMs / intervalMs) + 1) * intervalMs;
}

/** The latest aligned tick at or before `nowMs`. */
export function alignedAtOrBefore(nowMs: number, intervalMs: number): number {
  return Math.floor(nowMs / intervalMs) * intervalMs;
}

/** Aligned ticks strictly after `afterMs` and strictly before `beforeMs`, ascending. */
export function ticksBetween(afterMs: number, beforeMs: number, intervalMs: number): number[] {
  const out: number[] = [];
  for (let t = nextAlignedTick(afterMs, intervalMs); t < beforeMs; t += intervalMs) out.push(t);
  return out;
}

export interface AlignedLoopOptions {
  readonly clock: Clock;
  readonly intervalMs: number;
  readonly signal: AbortSignal;
  /** First tick to run; default the next aligned tick after now. */
  readonly firstTick?: number;
  /** A tick later than this behind the clock is skipped (counted in onSkip) instead of run. */
  readonly catchUpWindowMs: number;
  /** Runs one tick; `lateMs` = how far the clock is past the tick when it starts. */
  readonly onTick: (tick: number, lateMs: number) => Promise<void>;
  readonly onSkip?: (ticks: readonly number[]) => void;
}

/**
 * Runs `onTick` at every aligned tick until aborted. Ticks are never run early and never twice; a cycle that
 * overruns makes the following ticks run late (back to back) rather than be dropped, unless they fall out of
 * the catch-up window, in which case they are skipped and reported.
 */
export async function runAligned(o: AlignedLoopOptions): Promise<void> {
  let next = o.firstTick ?? nextAlignedTick(o.clock.now(), o.intervalMs);
  while (!o.signal.aborted) {
    const now = o.clock.now();
    if (next < now - o.catchUpWindowMs) {
      const resume = Math.max(next, nextAlignedTick(now - o.catchUpWindowMs - 1, o.intervalMs));
      const skipped: number[] = [];
      for (let t = next; t < resume; t += o.intervalMs) skipped.push(t);
      if (skipped.length > 0) o.onSkip?.(skipped);
      next = resume;
    }
    const wait = next - o.clock.now();
    if (wait > 0) await o.clock.sleep(wait, o.signal);
    if (o.signal.aborted) return;
    if (o.clock.now() < next) continue; // woke early (clock adjusted): wait again
    await o.onTick(next, o.clock.now() - next);
    next += o.intervalMs;
  }
}
