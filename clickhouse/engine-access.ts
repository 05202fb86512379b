import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Session } from 'chdb';
import { loadMigrations } from './migration-files.ts';
import { engineServerSettingsXml } from './engine-config.ts';

/**
 * Access control of the embedded engine (chDB), in ClickHouse's own terms: roles, grants and a row policy, loaded from
 * a users file when the process opens the engine. chDB runs every session as user `default` (it has no per-session
 * login and no EXECUTE AS), so the two kinds of session differ by their enabled role:
 *
 * - `gex_writer` (ALL ON *.*): the product's own sessions and the HTTP endpoint's admin. Both roles are default roles
 *   of `default`, so a session that sets none has both.
 * - `gex_reader`: every read-only session (`gex sql`, the endpoint's users other than admin). SELECT and SHOW on each
 *   table and view the migrations create in the product database (readerTables), the account tables (ACCOUNT_TABLES)
 *   excepted: nothing else, so neither what an admin adds later (a view, a dictionary, a copy) nor file, URL or
 *   remote sources. The engine checks it on every table a query reaches (subqueries, views, merge(),
 *   mergeTreeIndex(), system.tables…).
 *
 * A session can switch roles (SET ROLE), so a reader session must never run a statement of its choosing other than
 * a read: reader-session.ts gates every statement through the engine's parser first. The row policy hides the other
 * sessions' statement texts (system.processes and friends carry the values bound into them) from readers.
 *
 * The engine reads its configuration once, when the first session of the process opens it, and keeps it until the
 * last session closes: every opener of the embedded store goes through openEngineSession (store.ts keeps one open
 * for the store's lifetime). The files live in `<dataPath>/gex-access/`, one pair per database, rewritten only when
 * their text changes.
 */

/** The tables of clickhouse/migrations/010_accounts.sql: users, API key hashes, metered usage. Readers never see them. */
export const ACCOUNT_TABLES = ['users', 'api_keys', 'usage_events'] as const;
export const READER_ROLE = 'gex_reader';
export const WRITER_ROLE = 'gex_writer';
/** System tables that hold other sessions' statement texts (with their bound values) or error messages. */
export const STATEMENT_TEXT_TABLES = ['processes', 'errors', 'mutations', 'query_cache', 'asynchronous_inserts'] as const;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const CREATED = /^CREATE\s+(?:TABLE|MATERIALIZED\s+VIEW|VIEW)\s+IF\s+NOT\s+EXISTS\s+(\w+)/i;

/** What a reader may read: every table and view the migrations create, and the migrations log, minus the account tables. */
export function readerTables(): string[] {
  const created = loadMigrations().flatMap((m) => m.statements.flatMap((s) => CREATED.exec(s.trim())?.slice(1) ?? []));
  const accounts: readonly string[] = ACCOUNT_TABLES;
  return [...new Set(['schema_migrations', ...created])].filter((t) => !accounts.includes(t)).sort();
}

function usersXml(database: string): string {
  const grants = readerTables()
    .map((t) => `        <query>GRANT SELECT, SHOW ON ${database}.${t}</query>`)
    .join('\n');
  const policies = STATEMENT_TEXT_TABLES.map((t) => `          <${t}><filter>has(currentRoles(), '${WRITER_ROLE}')</filter></${t}>`).join(
    '\n',
  );
  return `<clickhouse>
  <profiles><default/></profiles>
  <quotas><default/></quotas>
  <users>
    <default>
      <password/>
      <networks><ip>::/0</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
      <grants>
        <query>GRANT ${WRITER_ROLE}</query>
        <query>GRANT ${READER_ROLE}</query>
      </grants>
      <databases>
        <system>
${policies}
        </system>
      </databases>
    </default>
  </users>
  <roles>
    <${WRITER_ROLE}>
      <grants><query>GRANT ALL ON *.*</query></grants>
    </${WRITER_ROLE}>
    <${READER_ROLE}>
      <grants>
${grants}
      </grants>
    </${READER_ROLE}>
  </roles>
</clickhouse>
`;
}

function writeIfChanged(path: string, text: string): void {
  let current: string | undefined;
  try {
    current = readFileSync(path, 'utf8');
  } catch {
    current = undefined;
  }
  if (current === text) return;
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path); // atomic: a concurrent opener reads the old or the new file, never half of one
}

const argsByStore = new Map<string, string[]>();

const xmlText = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The engine arguments that load the access configuration for `database` and the embedded engine's server settings
 * (engine-config.ts): files under dataPath/gex-access.
 */
export function engineAccessArgs(dataPath: string, database: string): string[] {
  if (!IDENTIFIER.test(database)) throw new Error(`invalid database name ${JSON.stringify(database)}`);
  const dir = join(resolve(dataPath), 'gex-access');
  const users = join(dir, `users-${database}.xml`);
  const config = join(dir, `config-${database}.xml`);
  const known = argsByStore.get(config);
  if (known !== undefined && existsSync(config)) return known;
  mkdirSync(dir, { recursive: true });
  writeIfChanged(users, usersXml(database));
  writeIfChanged(config, `<clickhouse>\n  <users_config>${xmlText(users)}</users_config>\n${engineServerSettingsXml()}</clickhouse>\n`);
  const args = [`--config-file=${config}`];
  argsByStore.set(config, args);
  return args;
}

/** A chDB session on the store under dataPath; the first one of the process opens the engine with the access config. */
export function openEngineSession(dataPath: string, database: string): Session {
  mkdirSync(dataPath, { recursive: true });
  return new Session(dataPath, { connectionArgs: engineAccessArgs(dataPath, database) });
}

/**
 * Fails unless the open engine enforces the reader role for `database` (the engine was opened by openEngineSession for
 * this database, not by a plain chDB session): the role must exist and grant exactly readerTables() there.
 */
export async function checkEngineAccess(session: Session, database: string): Promise<void> {
  const granted = await session
    .queryBindAsync(
      `SELECT arraySort(groupUniqArray(table)) AS t FROM system.grants
       WHERE role_name = {role:String} AND access_type = 'SELECT' AND database = {db:String} AND NOT is_partial_revoke`,
      { role: READER_ROLE, db: database },
      { format: 'JSONEachRow' },
    )
    .then((r) => (JSON.parse(r.text()) as { t: string[] }).t)
    .catch(() => [] as string[]);
  if (granted.join() !== readerTables().join())
    throw new Error(
      `the embedded engine was opened without the access configuration for database ${database} (readers would not be ` +
        'kept from the account tables); open the store through createStore / openEngineSession only',
    );
}
