import type { Store } from '#clickhouse/store.ts';
import { isStoreUnavailable } from '#clickhouse/errors.ts';
import type { Grid } from './grid.ts';
import { readSeries, SERIES, type SeriesData, type SeriesName, type TierChoice } from './series.ts';

/** Parses the `series` CSV: the distinct names in request order, or null when one is not a series. */
export function parseSeries(csv: string | undefined): SeriesName[] | null {
  if (csv === undefined) return [...SERIES];
  const names = csv
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (names.length === 0) return null;
  const out: SeriesName[] = [];
  for (const n of names) {
    if (!(SERIES as readonly string[]).includes(n)) return null;
    if (!out.includes(n as SeriesName)) out.push(n as SeriesName);
  }
  return out;
}

/** Quota units of a bundle request, from the raw query (before validation): one per distinct valid series. */
export function bundleUnits(query: unknown): number {
  const raw = typeof query === 'object' && query !== null ? (query as Record<string, unknown>)['series'] : undefined;
  if (raw === undefined) return SERIES.length;
  const csv = Array.isArray(raw) ? raw.join(',') : String(raw);
  const valid = new Set(
    csv
      .split(',')
      .map((s) => s.trim())
      .filter((s) => (SERIES as readonly string[]).includes(s)),
  );
  return Math.max(1, valid.size);
}

export interface BundleResult {
  /** Per requested series: its data, or null when it could not be served. */
  readonly series: ReadonlyMap<SeriesName, SeriesData | null>;
  /** Why a series is null. */
  readonly errors: Readonly<Partial<Record<SeriesName, string>>>;
}

/** Why a series could not be served (meta.extra.errors). */
export function reasonOf(err: unknown): string {
  if (isStoreUnavailable(err)) return 'store temporarily unreachable';
  const type = typeof err === 'object' && err !== null ? (err as { type?: unknown }).type : undefined;
  return typeof type === 'string' && type !== '' ? `query failed (${type})` : 'query failed';
}

/**
 * Reads every requested series; a series whose query fails is null with its reason, the others are served.
 * When every series failed because the store is unreachable, that error is thrown (503 for the whole request).
 */
export async function readBundle(
  store: Store,
  grid: Grid,
  symbol: string,
  names: readonly SeriesName[],
  tier: TierChoice = 'auto',
): Promise<BundleResult> {
  const reads = readSeries(store, grid, symbol, names, tier);
  const settled = await Promise.allSettled(names.map((n) => reads[n]()));
  const series = new Map<SeriesName, SeriesData | null>();
  const errors: Partial<Record<SeriesName, string>> = {};
  const failures: unknown[] = [];
  settled.forEach((r, i) => {
    const name = names[i] as SeriesName;
    if (r.status === 'fulfilled') series.set(name, r.value);
    else {
      series.set(name, null);
      errors[name] = reasonOf(r.reason);
      failures.push(r.reason);
    }
  });
  if (failures.length === names.length && failures.some(isStoreUnavailable)) throw failures.find(isStoreUnavailable);
  return { series, errors };
}
