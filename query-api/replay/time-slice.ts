/**
 * A replay's share of the event loop: after REPLAY_SLICE_MS of work since its last yield it waits one turn, so live
 * notifications, requests and the other replays go on between its slices (a slice counted in messages instead held
 * the loop for 128 renders of a levels message, ~0.1-0.3 s).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

export const REPLAY_SLICE_MS = 5;

export class TimeSlice {
  #since = performance.now();

  /** Waits one event-loop turn when the slice is used up; otherwise returns at once. */
  async yieldIfDue(): Promise<void> {
    if (performance.now() - this.#since < REPLAY_SLICE_MS) return;
    await nextTurn();
    this.#since = performance.now();
  }
}
