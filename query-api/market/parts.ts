import type { Store } from '../../clickhouse/store.ts';

/**
 * Change detection for the market serving structure (serving.ts): the active data parts of the state tables. A
 * MergeTree part is immutable: an INSERT (live, gap fill, backfill, a materialized view's block) adds a part, a
 * merge replaces parts by a new one, a mutation (`DELETE FROM`, as `gex backfill --rebuild` runs) replaces each part
 * it touches by a renamed one. So the roll-up of a bucket can only change when a part whose time range contains
 * that bucket appears or disappears; `system.parts` gives each part's range of `bucket` (min_time / max_time, the
 * partition key's min/max index).
 */

export interface PartInfo {
  /** Oldest and newest `bucket` in the part, Unix seconds (inclusive). */
  readonly fromS: number;
  readonly toS: number;
}

/** Active parts of one table: identity (name and modification time) -> bucket range. */
export type TableParts = ReadonlyMap<string, PartInfo>;
/** Active parts per table name (a table without parts, or missing, has no entry). */
export type PartsSnapshot = ReadonlyMap<string, TableParts>;

const PARTS_SQL = `SELECT table, name, toUInt32(modification_time) AS mtime, toUInt32(min_time) AS from_s, toUInt32(max_time) AS to_s
FROM system.parts
WHERE database = currentDatabase() AND table IN {tables:Array(String)} AND active`;

/** One statement: the active parts of `tables`. */
export async function readParts(store: Store, tables: readonly string[]): Promise<PartsSnapshot> {
  const res = await store.queryColumns(PARTS_SQL, { tables: [...tables] });
  const out = new Map<string, Map<string, PartInfo>>();
  const col = (n: string) => {
    const c = res.columns[n];
    if (c === undefined) throw new Error(`system.parts result has no column ${n}`);
    return c;
  };
  const table = col('table');
  const name = col('name');
  const mtime = col('mtime');
  const from = col('from_s');
  const to = col('to_s');
  for (let r = 0; r < res.rows; r++) {
    const t = String(table.values[r]);
    let parts = out.get(t);
    if (parts === undefined) out.set(t, (parts = new Map()));
    parts.set(`${String(name.values[r])}@${Number(mtime.values[r])}`, { fromS: Number(from.values[r]), toS: Number(to.values[r]) });
  }
  return out;
}

/** Bucket ranges (seconds, inclusive) of the parts that appeared or disappeared between two snapshots of a table. */
export function changedRanges(before: TableParts, after: TableParts): PartInfo[] {
  const out: PartInfo[] = [];
  for (const [k, p] of after) if (!before.has(k)) out.push(p);
  for (const [k, p] of before) if (!after.has(k)) out.push(p);
  return out;
}
