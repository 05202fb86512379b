/**
 * Rules that keep migrations safe while writers are live (clickhouse/README.md "Migrations with live writers").
 * Pure: statements in, statements or problems out; migrate.ts applies them.
 *
 * 1. Staged view change: a migration that drops a materialized view and creates it again (021 does) would lose the
 *    rows a writer inserts between the two statements. When the view exists and still writes into the same table,
 *    the runner runs the pair as one `ALTER TABLE v MODIFY QUERY <select>` instead: the view switches to the new
 *    SELECT atomically, every insert goes through the old or the new query, none through neither. (The file is not
 *    changed, so its checksum still matches.)
 * 2. New migrations (version >= WRITER_SAFE_FROM) may not drop, truncate, detach, exchange or rename a table or a
 *    view at all: changes are additive (ADD COLUMN, new tables, new views) or staged (MODIFY QUERY).
 */

/** The first migration version the writer-safety check applies to (001-050 predate the rule; 021 is immutable). */
export const WRITER_SAFE_FROM = 51;

const FORBIDDEN = /^(DROP\s+(TABLE|VIEW|DICTIONARY|DATABASE)|TRUNCATE|DETACH|EXCHANGE|RENAME\s+(TABLE|DICTIONARY))\b/i;
const DROP_VIEW = /^DROP\s+VIEW\s+(?:IF\s+EXISTS\s+)?(\w+)\s*$/i;
const CREATE_MV = /^CREATE\s+MATERIALIZED\s+VIEW\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)\s+TO\s+(\w+)\s+AS\s+/i;

/** The views a migration makes and removes, in statement order (the runner's and the cluster plan's bookkeeping). */
export function applyViewChanges(views: Map<string, string>, statements: readonly string[]): void {
  for (const s of statements) {
    const create = CREATE_MV.exec(s.trim());
    if (create !== null) views.set(create[1] as string, create[2] as string);
    const drop = DROP_VIEW.exec(s.trim());
    if (drop !== null) views.delete(drop[1] as string);
  }
}

/** Statements of a new migration that would break live writers (empty = safe). */
export function writerSafetyProblems(m: {
  readonly version: number;
  readonly name: string;
  readonly statements: readonly string[];
}): string[] {
  if (m.version < WRITER_SAFE_FROM) return [];
  return m.statements
    .filter((s) => FORBIDDEN.test(s.trim()))
    .map(
      (s) =>
        `${m.name}: "${s.trim().slice(0, 60)}" drops or replaces a table or view live writers may feed; add beside it, or ALTER TABLE <view> MODIFY QUERY`,
    );
}

/**
 * Rule 1. `existingViews`: materialized view name → the table it writes into, as the store has them now.
 * A DROP VIEW whose view is re-created later in the same migration, writing into the table it writes into today,
 * is removed, and that CREATE becomes MODIFY QUERY. Any other statement passes unchanged.
 */
export function stageViewSwaps(statements: readonly string[], existingViews: ReadonlyMap<string, string>): string[] {
  const recreated = new Map<string, string>();
  for (const s of statements) {
    const m = CREATE_MV.exec(s.trim());
    if (m !== null && existingViews.get(m[1] as string) === m[2]) recreated.set(m[1] as string, s.trim().slice(m[0].length));
  }
  const out: string[] = [];
  for (const s of statements) {
    const drop = DROP_VIEW.exec(s.trim());
    if (drop !== null && recreated.has(drop[1] as string)) continue;
    const create = CREATE_MV.exec(s.trim());
    const select = create === null ? undefined : recreated.get(create[1] as string);
    out.push(select === undefined ? s : `ALTER TABLE ${create?.[1] as string} MODIFY QUERY ${select}`);
  }
  return out;
}

/** The table a materialized view writes into, from its `create_table_query` (system.tables). */
export function viewTarget(createQuery: string): string | undefined {
  return /\bTO\s+(?:`?\w+`?\.)?`?(\w+)`?/i.exec(createQuery)?.[1];
}
