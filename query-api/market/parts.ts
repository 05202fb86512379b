import { columnOf } from '#clickhouse/row-binary.ts';
import type { Store } from '#clickhouse/store.ts';

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

/** Active parts of one table: identity (name and row count) -> bucket range. */
export type TableParts = ReadonlyMap<string, PartInfo>;
/** Active parts per table name (a table without parts, or missing, has no entry). */
export type PartsSnapshot = ReadonlyMap<string, TableParts>;

/** Table names go into the SQL as literals (measured: a parameter costs ~1 ms on chDB); they are constants of serving.ts. */
const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/**
 * One statement: the active parts of `tables`, keyed by name and row count (a part's name is unique within its
 * table while the table exists; the count guards against a table dropped and re-created with the same part names).
 * modification_time is left out: reading it costs ~1 ms (a stat per part).
 */
export async function readParts(store: Store, tables: readonly string[]): Promise<PartsSnapshot> {
  for (const t of tables) if (!IDENTIFIER.test(t)) throw new Error(`market serving: invalid table name ${JSON.stringify(t)}`);
  const res = await store.queryColumns(`SELECT table, name, rows, toUInt32(min_time) AS from_s, toUInt32(max_time) AS to_s
FROM system.parts
WHERE database = currentDatabase() AND table IN (${tables.map((t) => `'${t}'`).join(', ')}) AND active`);
  const out = new Map<string, Map<string, PartInfo>>();
  const table = columnOf(res, 'table', 'string', 'system.parts read');
  const name = columnOf(res, 'name', 'string', 'system.parts read');
  const rows = columnOf(res, 'rows', 'number', 'system.parts read');
  const from = columnOf(res, 'from_s', 'number', 'system.parts read');
  const to = columnOf(res, 'to_s', 'number', 'system.parts read');
  for (let r = 0; r < res.rows; r++) {
    const t = String(table.values[r]);
    let parts = out.get(t);
    if (parts === undefined) out.set(t, (parts = new Map()));
    parts.set(`${String(name.values[r])}:${Number(rows.values[r])}`, { fromS: Number(from.values[r]), toS: Number(to.values[r]) });
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
