import { childLogger } from '#platform/log.ts';
import { clusterMigrationsTable, toClusterDdl } from './cluster-ddl.ts';
import { LOCAL_SUFFIX } from './cluster-tables.ts';
import { loadMigrations, MigrationError, MIGRATIONS_DIR, type Migration } from './migration-files.ts';
import { stageViewSwaps, viewTarget } from './migration-rules.ts';
import type { Store } from './store.ts';

export { loadMigrations, MigrationError, MIGRATIONS_DIR, type Migration } from './migration-files.ts';

interface AppliedRow {
  readonly version: number;
  readonly name: string;
  readonly checksum: string;
}

const log = childLogger('clickhouse.migrate');

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version UInt32,
  name String,
  checksum String,
  applied_at DateTime64(3, 'UTC')
) ENGINE = MergeTree ORDER BY version`;

export interface MigrateOptions {
  readonly dir?: string;
  /** CLICKHOUSE_CLUSTER: run the replicated variant (cluster-ddl.ts) ON CLUSTER this cluster. */
  readonly cluster?: string;
}

/** Materialized views of the current database → the table each writes into (public name on a cluster). */
async function existingViews(store: Store, cluster: string | undefined): Promise<Map<string, string>> {
  const rows = await store.query<{ name: string; create_table_query: string }>(
    "SELECT name, create_table_query FROM system.tables WHERE database = currentDatabase() AND engine = 'MaterializedView'",
  );
  const views = new Map<string, string>();
  for (const r of rows) {
    const target = viewTarget(r.create_table_query);
    if (target === undefined) continue;
    views.set(r.name, cluster !== undefined && target.endsWith(LOCAL_SUFFIX) ? target.slice(0, -LOCAL_SUFFIX.length) : target);
  }
  return views;
}

/** A migration's statements as the runner executes them: staged view swaps, then the cluster variant if any. */
async function executable(store: Store, m: Migration, cluster: string | undefined): Promise<string[]> {
  const staged = stageViewSwaps(m.statements, await existingViews(store, cluster));
  return cluster === undefined ? staged : staged.flatMap((s) => toClusterDdl(s, cluster));
}

/**
 * Applies pending migrations once, in version order, recording each in `schema_migrations` after all of
 * its statements succeeded. Refuses to run (MigrationError, nothing applied) when an applied migration's
 * file changed or disappeared, or when a new file is numbered below the newest applied version.
 * ClickHouse DDL is not transactional: a migration that fails half-way is not recorded, so write its
 * statements re-runnable (`IF NOT EXISTS`). Live writers: migration-rules.ts (staged view swaps; new files may
 * not drop a table or view). Cluster: `opts.cluster` runs every statement's replicated variant (cluster-ddl.ts).
 */
export async function migrate(store: Store, opts: MigrateOptions = {}): Promise<{ applied: string[] }> {
  const migrations = loadMigrations(opts.dir ?? MIGRATIONS_DIR);
  const cluster = opts.cluster === '' ? undefined : opts.cluster;
  await store.command(cluster === undefined ? CREATE_TABLE : clusterMigrationsTable(cluster));
  const rows = await store.query<AppliedRow>('SELECT version, name, checksum FROM schema_migrations ORDER BY version');
  const onDisk = new Map(migrations.map((m) => [m.version, m]));
  let newest = 0;
  for (const row of rows) {
    const m = onDisk.get(row.version);
    if (m === undefined) throw new MigrationError(`applied migration ${row.name} is missing from ${opts.dir ?? MIGRATIONS_DIR}`);
    if (m.name !== row.name || m.checksum !== row.checksum) {
      throw new MigrationError(
        `migration ${row.name} was changed after it was applied (now ${m.name}, checksum ${m.checksum} != ${row.checksum}); add a new migration instead`,
      );
    }
    newest = Math.max(newest, row.version);
  }
  const appliedVersions = new Set(rows.map((r) => r.version));
  const pending = migrations.filter((m) => !appliedVersions.has(m.version));
  const outOfOrder = pending.find((m) => m.version < newest);
  if (outOfOrder !== undefined) {
    throw new MigrationError(`migration ${outOfOrder.name} is numbered below the newest applied version ${newest}; renumber it`);
  }

  const applied: string[] = [];
  for (const m of pending) {
    log.info({ migration: m.name, statements: m.statements.length }, 'applying migration');
    for (const sql of await executable(store, m, cluster)) await store.command(sql);
    await store.insert('schema_migrations', [{ version: m.version, name: m.name, checksum: m.checksum, applied_at: Date.now() }]);
    applied.push(m.name);
  }
  return { applied };
}
