import { cellAt, type ColumnsResult, type ResultColumn } from '../../clickhouse/store.ts';
import { VENUES } from '../../schemas/events.ts';
import { indexOf, type Grid } from './grid.ts';

export type Column = (number | null)[];

/** One series on a grid: column arrays aligned with the grid's timestamps (null = bucket without data). */
export interface SeriesData<K extends string = string> {
  readonly columns: Readonly<Record<K, Column>>;
  /** Buckets with data. */
  readonly coverage: number;
  /** Venues contributing, sorted. */
  readonly sources: readonly string[];
  /** Start of the first bucket with data, ms; null when none. */
  readonly firstMs: number | null;
  /** Newest event time seen, ms; null when none. */
  readonly lastMs: number | null;
}

/** Where a series' bucket metadata lives in a roll-up result (column names). */
export interface LayoutSpec<K extends string> {
  /** Output column name -> result column name. */
  readonly fields: Readonly<Record<K, string>>;
  /** Newest event of the bucket, ms. */
  readonly lastMs: string;
  /** Comma-separated venues of the bucket (one of venues / venueMask). */
  readonly venues?: string;
  /** Venue bitmask of the bucket: bit i = VENUES[i] (migration 021). */
  readonly venueMask?: string;
  /** When set: a bucket belongs to the series only where this count is > 0. */
  readonly present?: string;
}

const column = (res: ColumnsResult, name: string): ResultColumn => {
  const c = res.columns[name];
  if (c === undefined) throw new Error(`roll-up result has no column ${name}`);
  return c;
};

/** Row `i` of a column as a series value: null for NULL and for nan/inf (what JSON output gave: null). */
function num(col: ResultColumn, i: number): number | null {
  if (col.kind === 'number') {
    if (col.nulls !== null && col.nulls[i] === 1) return null;
    const v = col.values[i] as number;
    return Number.isFinite(v) ? v : null;
  }
  const v = Number(col.values[i] ?? Number.NaN);
  return Number.isFinite(v) ? v : null;
}

/**
 * Lays a roll-up result (one row per non-empty bucket, `t` = bucket start in Unix seconds) on the grid. Sources:
 * the venues of the buckets on the grid (`spec.venues` lists or `spec.venueMask` masks).
 */
export function layOnGrid<K extends string>(grid: Grid, res: ColumnsResult, spec: LayoutSpec<K>): SeriesData<K> {
  const names = Object.keys(spec.fields) as K[];
  const src = names.map((k) => column(res, spec.fields[k]));
  const out = names.map(() => new Array<number | null>(grid.points).fill(null));
  const t = column(res, 't');
  const last = column(res, spec.lastMs);
  const venues = spec.venues === undefined ? null : column(res, spec.venues);
  const present = spec.present === undefined ? null : column(res, spec.present);
  const mask = spec.venueMask === undefined ? null : column(res, spec.venueMask);
  const venueLists = new Set<string>();
  let venueBits = 0;
  let coverage = 0;
  let firstMs: number | null = null;
  let lastMs: number | null = null;
  for (let r = 0; r < res.rows; r++) {
    if (present !== null && !((num(present, r) ?? 0) > 0)) continue;
    const bucketMs = (num(t, r) ?? Number.NaN) * 1000;
    const i = indexOf(grid, bucketMs);
    if (i < 0) continue;
    coverage++;
    if (firstMs === null || bucketMs < firstMs) firstMs = bucketMs;
    const l = num(last, r);
    if (l !== null && (lastMs === null || l > lastMs)) lastMs = l;
    if (venues !== null) venueLists.add(String(cellAt(venues, r) ?? ''));
    if (mask !== null) venueBits |= num(mask, r) ?? 0;
    for (let k = 0; k < names.length; k++) (out[k] as Column)[i] = num(src[k] as ResultColumn, r);
  }
  const sources = new Set<string>(venuesOfMask(venueBits));
  for (const list of venueLists) for (const v of list.split(',')) if (v !== '') sources.add(v);
  const columns = Object.fromEntries(names.map((k, j) => [k, out[j] as Column])) as Record<K, Column>;
  return { columns, coverage, sources: [...sources].sort(), firstMs, lastMs };
}

/** The venues whose bits are set in a venue_mask (bit i = VENUES[i]). */
export function venuesOfMask(mask: number): string[] {
  return VENUES.filter((_, i) => (mask & (1 << i)) !== 0);
}

/** A field map where every output column reads the result column of the same name. */
export function sameNames<K extends string>(fields: readonly K[]): Record<K, string> {
  const out = {} as Record<K, string>;
  for (const f of fields) out[f] = f;
  return out;
}
