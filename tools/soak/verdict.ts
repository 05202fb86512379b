/**
 * The soak's pass rule (pure). After a warm-up (the first max(2 min, 20 %) of the samples' span, when caches,
 * JIT and the first snapshots settle), over the remaining minute samples:
 *   - memory flat: the least-squares slope of each process's RSS (per-period median) is ≤ 2 MB/min and of the
 *     product's live V8 heap (heap used right after a forced full GC) ≤ 1 MB/min: over the 24 measured minutes of a
 *     30-minute run, at most ~24 MB of retained growth;
 *   - zero errors: no API 5xx (server counter), no failed or 5xx request at the load generator;
 *   - fresh: every symbol's newest snapshot ≤ 90 s old at every sample (the alert threshold).
 * Needs at least three samples after the warm-up; fewer = not enough data (fail, with the reason).
 */
export interface SoakSample {
  /** Minutes since the start. */
  readonly minute: number;
  /** RSS per process, MB. */
  readonly rssMb: Readonly<Record<string, number>>;
  /** Live V8 heap of the product process (after a forced full GC), MB (null when unreadable). */
  readonly heapMb: number | null;
  /** Max snapshot age over symbols, s (null before the first snapshot). */
  readonly snapshotAgeS: number | null;
  /** Cumulative API 5xx (server) and load-generator failures. */
  readonly api5xx: number;
  readonly loadErrors: number;
}

export interface SoakVerdict {
  readonly pass: boolean;
  readonly reasons: readonly string[];
  readonly warmupMinutes: number;
  readonly rssSlopeMbPerMin: Readonly<Record<string, number>>;
  readonly heapSlopeMbPerMin: number | null;
}

export const RSS_SLOPE_MAX = 2;
export const HEAP_SLOPE_MAX = 1;
export const SNAPSHOT_AGE_MAX_S = 90;

/** Least-squares slope of y over x; 0 for fewer than two points or no spread in x. */
export function slope(xs: readonly number[], ys: readonly number[]): number {
  const n = Math.min(xs.length, ys.length);
  if (n < 2) return 0;
  const mx = xs.slice(0, n).reduce((a, x) => a + x, 0) / n;
  const my = ys.slice(0, n).reduce((a, y) => a + y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    const dx = (xs[i] as number) - mx;
    sxy += dx * ((ys[i] as number) - my);
    sxx += dx * dx;
  }
  return sxx === 0 ? 0 : sxy / sxx;
}

/** The warm-up of a run spanning `minutes`: max(2 min, 20 %). */
export function warmupOf(minutes: number): number {
  return Math.max(2, 0.2 * minutes);
}

export function verdict(samples: readonly SoakSample[]): SoakVerdict {
  const span = samples.length === 0 ? 0 : (samples[samples.length - 1] as SoakSample).minute;
  const warmupMinutes = warmupOf(span);
  const steady = samples.filter((s) => s.minute >= warmupMinutes);
  const reasons: string[] = [];
  if (steady.length < 3) {
    return {
      pass: false,
      reasons: [
        `only ${steady.length} samples after the ${warmupMinutes.toFixed(1)} min warm-up (need 3: run at least ${Math.ceil(warmupMinutes) + 2} min)`,
      ],
      warmupMinutes,
      rssSlopeMbPerMin: {},
      heapSlopeMbPerMin: null,
    };
  }
  const xs = steady.map((s) => s.minute);
  const rssSlopeMbPerMin: Record<string, number> = {};
  for (const proc of Object.keys(steady[0]?.rssMb ?? {})) {
    const k = slope(
      xs,
      steady.map((s) => s.rssMb[proc] ?? 0),
    );
    rssSlopeMbPerMin[proc] = k;
    if (k > RSS_SLOPE_MAX) reasons.push(`${proc} RSS grows ${k.toFixed(2)} MB/min (max ${RSS_SLOPE_MAX})`);
  }
  const heaps = steady.filter((s) => s.heapMb !== null);
  const heapSlopeMbPerMin =
    heaps.length >= 3
      ? slope(
          heaps.map((s) => s.minute),
          heaps.map((s) => s.heapMb as number),
        )
      : null;
  if (heapSlopeMbPerMin === null) reasons.push('heap used not readable from the metrics');
  else if (heapSlopeMbPerMin > HEAP_SLOPE_MAX)
    reasons.push(`heap used grows ${heapSlopeMbPerMin.toFixed(2)} MB/min (max ${HEAP_SLOPE_MAX})`);
  const last = samples[samples.length - 1] as SoakSample;
  if (last.api5xx > 0) reasons.push(`${last.api5xx} API 5xx`);
  if (last.loadErrors > 0) reasons.push(`${last.loadErrors} failed requests at the load generator`);
  const stale = steady.filter((s) => s.snapshotAgeS === null || s.snapshotAgeS > SNAPSHOT_AGE_MAX_S);
  if (stale.length > 0)
    reasons.push(`snapshot older than ${SNAPSHOT_AGE_MAX_S} s (or none) at minute(s) ${stale.map((s) => s.minute.toFixed(1)).join(', ')}`);
  return { pass: reasons.length === 0, reasons, warmupMinutes, rssSlopeMbPerMin, heapSlopeMbPerMin };
}
