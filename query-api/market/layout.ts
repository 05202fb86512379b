import { cellAt, type ColumnsResult, type ResultColumn } from '#clickhouse/store.ts';
import { VENUES } from '#schemas/events.ts';
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
  const v = Number(cellAt(col, i) ?? Number.NaN);
  return Number.isFinite(v) ? v : null;
}

/**
 * Lays a roll-up result (one row per non-empty bucket, `t` = bucket start in Unix seconds) on the grid. Sources:
 * the venues of the buckets on the grid (`spec.venues` lists or `spec.venueMask` masks).
 */
export function layOnGrid<K extends string>(grid: Grid, res: ColumnsResult, spec: LayoutSpec<K>): SeriesData<K> {
  const names = Object.keys(spec.fields) as K[];
  const t = column(res, 't');
  const last = column(res, spec.lastMs);
  const venues = spec.venues === undefined ? null : column(res, spec.venues);
  const present = spec.present === undefined ? null : column(res, spec.present);
  const mask = spec.venueMask === undefined ? null : column(res, spec.venueMask);
  // Where each result row lands on the grid (-1: off the grid or not present), then one pass per column.
  const at = new Int32Array(res.rows);
  const venueLists = new Set<string>();
  let venueBits = 0;
  let coverage = 0;
  let firstMs: number | null = null;
  let lastMs: number | null = null;
  for (let r = 0; r < res.rows; r++) {
    at[r] = -1;
    if (present !== null && !((num(present, r) ?? 0) > 0)) continue;
    const bucketMs = (num(t, r) ?? Number.NaN) * 1000;
    const i = indexOf(grid, bucketMs);
    if (i < 0) continue;
    at[r] = i;
    coverage++;
    if (firstMs === null || bucketMs < firstMs) firstMs = bucketMs;
    const l = num(last, r);
    if (l !== null && (lastMs === null || l > lastMs)) lastMs = l;
    if (venues !== null) venueLists.add(String(cellAt(venues, r) ?? ''));
    if (mask !== null) venueBits |= num(mask, r) ?? 0;
  }
  const columns = {} as Record<K, Column>;
  for (const k of names) columns[k] = spread(column(res, spec.fields[k]), at, grid.points);
  const sources = new Set<string>(venuesOfMask(venueBits));
  for (const list of venueLists) for (const v of list.split(',')) if (v !== '') sources.add(v);
  return { columns, coverage, sources: [...sources].sort(), firstMs, lastMs };
}

/** Slot values of the column being spread (reused: synchronous, one column at a time). */
let scratch = new Float64Array(0);

/**
 * A result column spread onto `points` grid slots (`at[r]` = slot of row r, -1 = none); other slots null. A column
 * with a finite value in every slot comes back as a packed array of doubles (no boxed numbers: cheaper to build,
 * to collect and to serialize).
 */
function spread(col: ResultColumn, at: Int32Array, points: number): Column {
  if (scratch.length < points) scratch = new Float64Array(points);
  const values = scratch.subarray(0, points).fill(Number.NaN);
  let filled = 0;
  const plain = col.kind === 'number' && col.nulls === null ? col.values : null;
  for (let r = 0; r < at.length; r++) {
    const i = at[r] as number;
    if (i < 0) continue;
    const v = plain !== null ? (plain[r] as number) : (num(col, r) ?? Number.NaN);
    if (!Number.isFinite(v)) continue;
    if (Number.isNaN(values[i] as number)) filled++;
    values[i] = v;
  }
  const out: Column = [];
  if (filled === points) {
    for (let i = 0; i < points; i++) out.push(values[i] as number);
    return out;
  }
  for (let i = 0; i < points; i++) {
    const v = values[i] as number;
    out.push(Number.isNaN(v) ? null : v);
  }
  return out;
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
