import type { FastifyBaseLogger } from 'fastify';
import type { Entitlement } from '../accounts/plans.ts';
import type { CounterBackend, HitRequest, HitResult } from './counter.ts';
import { MemoryCounter } from './memory-counter.ts';
import { decisionOf } from './decision.ts';
import type { LimitDecision } from './decision.ts';

export type { LimitDecision, LimitState } from './decision.ts';
import type { UsageRecorder } from './usage.ts';
import { minuteWindow, monthWindow, secondsUntil, unixSeconds } from './windows.ts';

export interface LimiterOptions {
  /** Shared counters (Redis) or undefined for in-process counters. */
  readonly shared: CounterBackend | undefined;
  readonly usage: UsageRecorder;
  readonly clock: () => number;
  readonly fallbackFactor: number;
  readonly log: FastifyBaseLogger;
  /** After a shared-store failure, skip it for this long before trying again (ms). */
  readonly retrySharedAfterMs?: number;
}

/**
 * Per-user limits shared across the user's keys: a UTC-minute burst window and a UTC-month quota. Uses the
 * shared backend when configured; when it fails, a per-machine counter with a stricter burst cap
 * (`fallbackFactor` × plan cap) takes over until the shared backend answers again.
 */
export class RateLimiter {
  private readonly local = new MemoryCounter();
  private sharedDownUntil = 0;
  private fallbackActive = false;

  constructor(private readonly opts: LimiterOptions) {}

  get inFallback(): boolean {
    return this.fallbackActive;
  }

  async check(userId: string, ent: Entitlement, units: number): Promise<LimitDecision> {
    const now = this.opts.clock();
    const base = { userId, units, quota: ent.monthlyQuota, now };
    let result: HitResult | undefined;
    let burstLimit = ent.burstPerMinute;
    let fallback = false;
    const shared = this.opts.shared;
    // The retry timer runs on the monotonic clock: it is an operational back-off, not a rate window.
    if (shared !== undefined && performance.now() >= this.sharedDownUntil) {
      try {
        result = await this.seeded(shared, { ...base, burstLimit });
        if (this.fallbackActive) this.opts.log.info('rate-limit store is back; leaving the fallback counter');
        this.fallbackActive = false;
      } catch (err) {
        this.sharedDownUntil = performance.now() + (this.opts.retrySharedAfterMs ?? 1000);
        if (!this.fallbackActive)
          this.opts.log.warn(
            { err: err instanceof Error ? err.message : String(err) },
            'rate-limit store failed; using the stricter per-machine counter',
          );
        this.fallbackActive = true;
      }
    }
    if (result === undefined) {
      fallback = shared !== undefined;
      if (fallback && burstLimit !== null) burstLimit = Math.max(1, Math.floor(burstLimit * this.opts.fallbackFactor));
      result = await this.seeded(this.local, { ...base, burstLimit });
    }
    if (result.kind === 'missing') throw new Error('counter still missing after seeding');
    if (result.kind === 'allowed') this.opts.usage.record(userId, monthWindow(now).month, units);
    return decisionOf(now, ent, burstLimit, fallback, result);
  }

  /**
   * The same answer without waiting when it needs no I/O: in-process counters only (no shared backend) and a
   * user already counted this month. undefined = call check().
   */
  checkLocal(userId: string, ent: Entitlement, units: number): LimitDecision | undefined {
    if (this.opts.shared !== undefined) return undefined;
    const now = this.opts.clock();
    const burstLimit = ent.burstPerMinute;
    const result = this.local.hitSync({ userId, units, quota: ent.monthlyQuota, now, burstLimit });
    if (result.kind === 'missing') return undefined;
    if (result.kind === 'allowed') this.opts.usage.record(userId, monthWindow(now).month, units);
    return decisionOf(now, ent, burstLimit, false, result);
  }

  /** Asks the backend; when it has no month count yet, seeds it from usage_events and asks again. */
  private async seeded(backend: CounterBackend, req: HitRequest): Promise<HitResult> {
    const first = await backend.hit(req);
    if (first.kind !== 'missing') return first;
    const month = monthWindow(req.now).month;
    let seed: number;
    try {
      seed = await this.opts.usage.monthUsage(req.userId, month);
    } catch (err) {
      seed = this.opts.usage.pendingUnits(req.userId, month);
      this.opts.log.warn(
        { err: err instanceof Error ? err.message : String(err), userId: req.userId },
        'cannot read monthly usage; counting from what this process knows',
      );
    }
    return backend.hit({ ...req, seed });
  }

  async close(): Promise<void> {
    await this.local.close();
    await this.opts.shared?.close();
  }
}

/** Per-IP fixed-window limiter for the unauthenticated /v2/health probe (per process). */
export class IpLimiter {
  private minuteStart = 0;
  private counts = new Map<string, number>();

  constructor(
    private readonly perMinute: number,
    private readonly clock: () => number,
  ) {}

  check(ip: string): LimitDecision {
    const now = this.clock();
    const minute = minuteWindow(now);
    const month = monthWindow(now);
    if (minute.start !== this.minuteStart) {
      this.minuteStart = minute.start;
      this.counts = new Map();
    }
    const used = this.counts.get(ip) ?? 0;
    const allowed = used < this.perMinute;
    if (allowed) this.counts.set(ip, used + 1);
    const count = allowed ? used + 1 : used;
    return {
      allowed,
      reason: allowed ? null : 'burst',
      fallback: false,
      burst: { limit: this.perMinute, remaining: Math.max(0, this.perMinute - count), reset: unixSeconds(minute.end) },
      quota: { limit: null, remaining: null, reset: unixSeconds(month.end) },
      retryAfterSeconds: allowed ? null : secondsUntil(now, minute.end),
      month: month.month,
    };
  }
}
