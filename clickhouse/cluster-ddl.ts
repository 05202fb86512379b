/**
 * The cluster variant of a single-node migration statement (CLICKHOUSE_CLUSTER, clickhouse/README.md "Cluster
 * schema"). Pure: one statement in, the statements to run on a cluster out.
 *
 * - `CREATE TABLE t … ENGINE = XMergeTree(args)` → `t_local ON CLUSTER c … ENGINE = ReplicatedXMergeTree(
 *   '/clickhouse/tables/{shard}/{database}/t_local', '{replica}', args)` plus `t ON CLUSTER c AS t_local
 *   ENGINE = Distributed(c, currentDatabase(), t_local, <sharding key>)`: readers and writers keep the public name.
 *   `non_replicated_deduplication_window` becomes `replicated_deduplication_window` (same number of blocks).
 * - `CREATE MATERIALIZED VIEW v TO t AS SELECT … FROM s` → `v ON CLUSTER c TO t_local AS SELECT … FROM s_local`:
 *   each shard aggregates the rows it stores.
 * - `ALTER TABLE t` column changes → on `t_local` and on `t` (both ON CLUSTER); mutations (UPDATE / DELETE) →
 *   on `t_local`; `ALTER TABLE v MODIFY QUERY` → ON CLUSTER with the body's tables made local.
 * - `DROP VIEW v` → ON CLUSTER; `DROP TABLE t` → both tables ON CLUSTER.
 * - `INSERT` is not DDL: unchanged, it goes through the Distributed tables.
 * Anything else is refused (ClusterDdlError), so a new kind of statement gets a rule here before it ships.
 */
import { LOCAL_SUFFIX, SHARDING_KEYS, zooPath } from './cluster-tables.ts';

export class ClusterDdlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClusterDdlError';
  }
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const CREATE_TABLE = /^CREATE\s+TABLE\s+(IF\s+NOT\s+EXISTS\s+)?(\w+)\s*/i;
const CREATE_MV = /^CREATE\s+MATERIALIZED\s+VIEW\s+(IF\s+NOT\s+EXISTS\s+)?(\w+)\s+TO\s+(\w+)\s+AS\s+/i;
const ALTER = /^ALTER\s+TABLE\s+(\w+)\s+/i;
const DROP = /^DROP\s+(VIEW|TABLE)\s+(IF\s+EXISTS\s+)?(\w+)\s*$/i;
const ENGINE = /\bENGINE\s*=\s*(\w+)/i;
const COLUMN_CHANGE = /^(ADD|DROP|MODIFY|RENAME|COMMENT|CLEAR)\s+COLUMN\b/i;
const MUTATION = /^(UPDATE|DELETE)\b/i;

function shardingKey(table: string): string {
  const key = SHARDING_KEYS[table];
  if (key === undefined) throw new ClusterDdlError(`table ${table} has no sharding key: add it to clickhouse/cluster-tables.ts`);
  return key;
}

const local = (table: string): string => `${table}${LOCAL_SUFFIX}`;

/** Index of the `)` closing the `(` at `open`. */
function closingParen(sql: string, open: number): number {
  let depth = 0;
  for (let i = open; i < sql.length; i++) {
    if (sql[i] === '(') depth++;
    else if (sql[i] === ')' && --depth === 0) return i;
  }
  throw new ClusterDdlError(`unbalanced parentheses after ENGINE in: ${sql.slice(0, 80)}`);
}

/** `ENGINE = XMergeTree[(args)]` → `ENGINE = ReplicatedXMergeTree('<zoo path>', '{replica}'[, args])`. */
function replicatedEngine(rest: string, localTable: string): string {
  const m = ENGINE.exec(rest);
  const engine = m?.[1];
  if (m === null || engine === undefined || !engine.endsWith('MergeTree') || engine.startsWith('Replicated')) {
    throw new ClusterDdlError(`table ${localTable}: only non-replicated *MergeTree engines are transformed (got ${engine ?? 'none'})`);
  }
  const afterName = m.index + m[0].length;
  const open = /^\s*\(/.exec(rest.slice(afterName));
  let args = '';
  let end = afterName;
  if (open !== null) {
    const openAt = afterName + open[0].length - 1;
    const close = closingParen(rest, openAt);
    args = rest.slice(openAt + 1, close).trim();
    end = close + 1;
  }
  const replicated = `ENGINE = Replicated${engine}('${zooPath(localTable)}', '{replica}'${args === '' ? '' : `, ${args}`})`;
  // The insert-deduplication window of a replicated table has its own setting (the other one is ignored there).
  const settings = rest.slice(end).replace(/\bnon_replicated_deduplication_window\b/g, 'replicated_deduplication_window');
  return `${rest.slice(0, m.index)}${replicated}${settings}`;
}

/** Table names after FROM / JOIN in a view's SELECT → their local tables (a view reads the rows of its shard). */
export function localizeSelect(select: string): string {
  return select.replace(/\b(FROM|JOIN)(\s+)(\w+)\b/gi, (all, kw: string, ws: string, name: string) =>
    SHARDING_KEYS[name] === undefined ? all : `${kw}${ws}${local(name)}`,
  );
}

function createTable(sql: string, m: RegExpExecArray, cluster: string): string[] {
  const ifNotExists = m[1] === undefined ? '' : 'IF NOT EXISTS ';
  const table = m[2] as string;
  const key = shardingKey(table);
  let rest = sql.slice(m[0].length);
  const as = /^AS\s+(\w+)\s+/i.exec(rest);
  if (as !== null) {
    shardingKey(as[1] as string);
    rest = `AS ${local(as[1] as string)} ${rest.slice(as[0].length)}`;
  }
  return [
    `CREATE TABLE ${ifNotExists}${local(table)} ON CLUSTER ${cluster} ${replicatedEngine(rest, local(table))}`,
    `CREATE TABLE ${ifNotExists}${table} ON CLUSTER ${cluster} AS ${local(table)} ENGINE = Distributed(${cluster}, currentDatabase(), ${local(table)}, ${key})`,
  ];
}

function alterTable(sql: string, m: RegExpExecArray, cluster: string): string[] {
  const name = m[1] as string;
  const rest = sql.slice(m[0].length).trim();
  if (SHARDING_KEYS[name] === undefined) {
    const modify = /^MODIFY\s+QUERY\s+/i.exec(rest);
    if (modify === null) throw new ClusterDdlError(`ALTER TABLE ${name}: unknown table, and not a view's MODIFY QUERY`);
    return [`ALTER TABLE ${name} ON CLUSTER ${cluster} MODIFY QUERY ${localizeSelect(rest.slice(modify[0].length))}`];
  }
  if (MUTATION.test(rest)) return [`ALTER TABLE ${local(name)} ON CLUSTER ${cluster} ${rest}`];
  if (!COLUMN_CHANGE.test(rest)) throw new ClusterDdlError(`ALTER TABLE ${name}: only column changes and mutations are transformed`);
  return [`ALTER TABLE ${local(name)} ON CLUSTER ${cluster} ${rest}`, `ALTER TABLE ${name} ON CLUSTER ${cluster} ${rest}`];
}

/** The statements a cluster runs for one single-node migration statement (comments already removed). */
export function toClusterDdl(statement: string, cluster: string): string[] {
  if (!IDENT.test(cluster)) throw new ClusterDdlError(`cluster name ${JSON.stringify(cluster)} is not a plain identifier`);
  const sql = statement.trim();
  const mv = CREATE_MV.exec(sql);
  if (mv !== null) {
    const target = mv[3] as string;
    shardingKey(target);
    const ifNotExists = mv[1] === undefined ? '' : 'IF NOT EXISTS ';
    return [
      `CREATE MATERIALIZED VIEW ${ifNotExists}${mv[2] as string} ON CLUSTER ${cluster} TO ${local(target)} AS ${localizeSelect(sql.slice(mv[0].length))}`,
    ];
  }
  const create = CREATE_TABLE.exec(sql);
  if (create !== null) return createTable(sql, create, cluster);
  const alter = ALTER.exec(sql);
  if (alter !== null) return alterTable(sql, alter, cluster);
  const drop = DROP.exec(sql);
  if (drop !== null) {
    const [kind, ifExists, name] = [(drop[1] as string).toUpperCase(), drop[2] === undefined ? '' : 'IF EXISTS ', drop[3] as string];
    if (kind === 'VIEW') return [`DROP VIEW ${ifExists}${name} ON CLUSTER ${cluster}`];
    return [`DROP TABLE ${ifExists}${name} ON CLUSTER ${cluster}`, `DROP TABLE ${ifExists}${local(name)} ON CLUSTER ${cluster}`];
  }
  if (/^INSERT\s+INTO\s+/i.test(sql)) return [sql];
  throw new ClusterDdlError(`no cluster rule for statement: ${sql.slice(0, 80)}`);
}

/** `schema_migrations` on a cluster: one replica set spanning every node (no {shard}), so each node sees what was applied. */
export function clusterMigrationsTable(cluster: string): string {
  if (!IDENT.test(cluster)) throw new ClusterDdlError(`cluster name ${JSON.stringify(cluster)} is not a plain identifier`);
  return `CREATE TABLE IF NOT EXISTS schema_migrations ON CLUSTER ${cluster} (
  version UInt32,
  name String,
  checksum String,
  applied_at DateTime64(3, 'UTC')
) ENGINE = ReplicatedMergeTree('/clickhouse/tables/{database}/schema_migrations', '{replica}') ORDER BY version`;
}
