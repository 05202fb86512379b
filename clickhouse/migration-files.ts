import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { splitSqlStatements } from './split-sql.ts';
import { writerSafetyProblems } from './migration-rules.ts';

/**
 * The migration files (clickhouse/MIGRATIONS.md): read, split into statements, checksummed and checked against the
 * live-writer rules. No store: migrate.ts applies them; engine-access.ts reads which tables they create.
 */

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

export class MigrationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MigrationError';
  }
}

const FILE = /^(\d{3,})_([a-z0-9_]+)\.sql$/;

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
  const unsafe = out.flatMap(writerSafetyProblems);
  if (unsafe.length > 0) throw new MigrationError(`migrations unsafe with live writers:\n${unsafe.join('\n')}`);
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
