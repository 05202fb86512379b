/** A manual clock for scheduler tests: time moves only through advance(). */
import type { Clock } from '../clock.ts';

export class FakeClock implements Clock {
  private sleepers: { at: number; resolve: () => void }[] = [];
  constructor(private t: number) {}

  now(): number {
    return this.t;
  }

  sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      this.sleepers.push({ at: this.t + ms, resolve });
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  /** Move time forward by `ms`, waking every sleeper that is due, and let the woken code run. */
  async advance(ms: number): Promise<void> {
    this.t += ms;
    const due = this.sleepers.filter((s) => s.at <= this.t);
    this.sleepers = this.sleepers.filter((s) => s.at > this.t);
    for (const s of due) s.resolve();
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  }
}
