import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { childLogger } from '../ops/floor/log.ts';
import { splitSqlStatements } from './split-sql.ts';
import type { Store } from './store.ts';

/** Default migrations folder: clickhouse/migrations next to this file. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

export interface Migration {
  readonly version: number;
  /** File name without `.sql`, e.g. `001_raw_tables`. */
  readonly name: string;
  /** sha256 of the file's bytes, hex. */
  readonly checksum: string;
  readonly statements: readonly string[];
}

interface AppliedRow {
  readonly version: number;
  readonly name: string;
  readonly checksum: string;
}

export class MigrationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MigrationError';
  }
}

const FILE = /^(\d{3,})_([a-z0-9_]+)\.sql$/;
const log = childLogger('clickhouse.migrate');

/** Reads `NNN_name.sql` files in version order. Any other `.sql` file or a duplicate version is an error. */
export function loadMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  const out: Migration[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.sql'))) {
    const m = FILE.exec(file);
    if (m === null || m[1] === undefined) throw new MigrationError(`migration file ${file} is not named NNN_name.sql`);
    const text = readFileSync(join(dir, file));
    out.push({
      version: Number(m[1]),
      name: file.slice(0, -'.sql'.length),
      checksum: createHash('sha256').update(text).digest('hex'),
      statements: splitSqlStatements(text.toString('utf8')),
    });
  }
  out.sort((a, b) => a.version - b.version);
  for (let i = 1; i < out.length; i++) {
    const prev = out[i - 1];
    const cur = out[i];
    if (prev !== undefined && cur !== undefined && prev.version === cur.version) {
      throw new MigrationError(`duplicate migration version ${cur.version}: ${prev.name}, ${cur.name}`);
    }
  }
  return out;
}

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version UInt32,
  name String,
  checksum String,
  applied_at DateTime64(3, 'UTC')
) ENGINE = MergeTree ORDER BY version`;

/**
 * Applies pending migrations once, in version order, recording each in `schema_migrations` after all of
 * its statements succeeded. Refuses to run (MigrationError, nothing applied) when an applied migration's
 * file changed or disappeared, or when a new file is numbered below the newest applied version.
 * ClickHouse DDL is not transactional: a migration that fails half-way is not recorded, so write its
 * statements re-runnable (`IF NOT EXISTS`).
 */
export async function migrate(store: Store, opts: { readonly dir?: string } = {}): Promise<{ applied: string[] }> {
  const migrations = loadMigrations(opts.dir ?? MIGRATIONS_DIR);
  await store.command(CREATE_TABLE);
  const rows = await store.query<AppliedRow>('SELECT version, name, checksum FROM schema_migrations ORDER BY version');
  const onDisk = new Map(migrations.map((m) => [m.version, m]));
  let newest = 0;
  for (const row of rows) {
    const m = onDisk.get(row.version);
    if (m === undefined) throw new MigrationError(`applied migration ${row.name} is missing from ${opts.dir ?? MIGRATIONS_DIR}`);
    if (m.name !== row.name || m.checksum !== row.checksum) {
      throw new MigrationError(`migration ${row.name} was changed after it was applied (now ${m.name}, checksum ${m.checksum} != ${row.checksum}); add a new migration instead`);
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
    for (const sql of m.statements) await store.command(sql);
    await store.insert('schema_migrations', [{ version: m.version, name: m.name, checksum: m.checksum, applied_at: Date.now() }]);
    applied.push(m.name);
  }
  return { applied };
}
