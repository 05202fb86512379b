import type { CounterBackend, HitRequest, HitResult } from './counter.ts';
import { minuteWindow, monthWindow } from './windows.ts';

interface Entry {
  month: number;
  monthCount: number;
  minuteStart: number;
  minuteCount: number;
}

/** Per-process counters (the default without REDIS_URL, and the fallback when Redis fails). */
export class MemoryCounter implements CounterBackend {
  private readonly entries = new Map<string, Entry>();

  async hit(req: HitRequest): Promise<HitResult> {
    return this.hitSync(req);
  }

  hitSync(req: HitRequest): HitResult {
    const { month } = monthWindow(req.now);
    const minuteStart = minuteWindow(req.now).start;
    let e = this.entries.get(req.userId);
    if (e === undefined || e.month !== month) {
      if (req.seed === undefined) return { kind: 'missing' };
      e = { month, monthCount: req.seed, minuteStart, minuteCount: e?.minuteStart === minuteStart ? e.minuteCount : 0 };
      this.entries.set(req.userId, e);
    }
    if (e.minuteStart !== minuteStart) {
      e.minuteStart = minuteStart;
      e.minuteCount = 0;
    }
    if (req.quota !== null && e.monthCount + req.units > req.quota)
      return { kind: 'quota', minuteCount: e.minuteCount, monthCount: e.monthCount };
    if (req.burstLimit !== null && e.minuteCount >= req.burstLimit)
      return { kind: 'burst', minuteCount: e.minuteCount, monthCount: e.monthCount };
    e.minuteCount += 1;
    e.monthCount += req.units;
    return { kind: 'allowed', minuteCount: e.minuteCount, monthCount: e.monthCount };
  }

  async close(): Promise<void> {
    this.entries.clear();
  }
}
