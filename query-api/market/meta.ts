import { snapshotMeta, type MetaFields } from '../envelope/envelope.ts';
import { hoursBetween, type Grid } from './grid.ts';
import type { SeriesData } from './series.ts';

/** What meta reads of a served series. */
export type SeriesSummary = Pick<SeriesData, 'coverage' | 'sources' | 'firstMs' | 'lastMs'>;

export interface WindowMetaInput {
  readonly now: number;
  readonly symbol: string;
  readonly grid: Grid;
  readonly hours: number;
  /** Served series by name (null = could not be served). */
  readonly series: ReadonlyMap<string, SeriesSummary | null>;
  /** Extra keys merged into meta.extra (errors, quota units, history_clamp, ...). */
  readonly extra?: Readonly<Record<string, unknown>>;
  readonly historyDepthEnforced: boolean;
}

/**
 * meta of the market routes: symbol, source (venues of every served series), computed_at = newest event in
 * the window (freshness_seconds its age), and extra: interval, hours, points, coverage and sources per series,
 * available_hours when the data starts after the first bucket.
 */
export function marketMeta(m: WindowMetaInput): MetaFields {
  const coverage: Record<string, number> = {};
  const sources: Record<string, string[]> = {};
  const all = new Set<string>();
  let last: number | null = null;
  let first: number | null = null;
  for (const [name, s] of m.series) {
    coverage[name] = s?.coverage ?? 0;
    sources[name] = s === null ? [] : [...s.sources];
    if (s === null) continue;
    for (const v of s.sources) all.add(v);
    if (s.lastMs !== null) last = last === null ? s.lastMs : Math.max(last, s.lastMs);
    if (s.firstMs !== null) first = first === null ? s.firstMs : Math.min(first, s.firstMs);
  }
  const startsLate = first === null || first > m.grid.fromMs;
  const base = snapshotMeta(m.now, {
    symbol: m.symbol,
    computedAt: last,
    source: [...all].sort(),
    extra: {
      interval: m.grid.interval,
      hours: m.hours,
      points: m.grid.points,
      coverage,
      sources,
      ...(startsLate ? { available_hours: first === null ? 0 : hoursBetween(first, m.now) } : {}),
      ...m.extra,
    },
  });
  return { ...base, history_depth_enforced: m.historyDepthEnforced };
}
