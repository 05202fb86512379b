/**
 * A long loop's share of the event loop: after `sliceMs` (default 5 ms) of work since its last yield it waits one
 * turn, so requests, live notifications and other work go on between its slices. Used by the replays (a slice
 * counted in messages held the loop for 128 renders of a levels message, ~0.1-0.3 s) and the live flow book's loads
 * (a million stored trades added at once held it for seconds).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

export const DEFAULT_SLICE_MS = 5;

export class TimeSlice {
  #since = performance.now();

  constructor(private readonly sliceMs = DEFAULT_SLICE_MS) {}

  /** Waits one event-loop turn when the slice is used up; otherwise returns at once. */
  async yieldIfDue(): Promise<void> {
    if (performance.now() - this.#since < this.sliceMs) return;
    await nextTurn();
    this.#since = performance.now();
  }
}
