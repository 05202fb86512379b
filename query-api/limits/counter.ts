/**
 * One metering step for a user: check the monthly quota, then the per-minute burst, and count the request
 * when both allow it. Backends: in-process (memory-counter.ts) and Redis (redis-counter.ts). A backend that
 * has no monthly count for the user yet answers `missing`; the caller then supplies the month's usage so far
 * (from usage_events) as `seed` and asks again.
 */
export interface HitRequest {
  readonly userId: string;
  /** Quota units this request costs (>= 1). The burst counts requests, not units. */
  readonly units: number;
  /** null = unlimited. */
  readonly burstLimit: number | null;
  readonly quota: number | null;
  readonly now: number;
  readonly seed?: number;
}

export type HitResult =
  | { readonly kind: 'missing' }
  | {
      readonly kind: 'allowed' | 'burst' | 'quota';
      /** Requests counted in the current minute (after this one when allowed). */
      readonly minuteCount: number;
      /** Units counted in the current month (after this one when allowed). */
      readonly monthCount: number;
    };

export interface CounterBackend {
  hit(req: HitRequest): Promise<HitResult>;
  close(): Promise<void>;
}
