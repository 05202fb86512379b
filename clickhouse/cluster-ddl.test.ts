import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ClusterDdlError, clusterMigrationsTable, localizeSelect, toClusterDdl } from './cluster-ddl.ts';
import { clusterPlan } from './cluster-plan.ts';
import { SHARDING_KEYS } from './cluster-tables.ts';
import { loadMigrations } from './migrate.ts';
import type { Store } from './store.ts';
import { openTempStore } from './testing/temp-store.ts';

const C = 'gex_cluster';

describe('toClusterDdl: hand-written vectors', () => {
  test('a ReplacingMergeTree(ts) table: replicated local table plus Distributed under the public name', () => {
    const out = toClusterDdl(
      "CREATE TABLE IF NOT EXISTS instruments (symbol String, venue String, instrument String, ts DateTime64(3, 'UTC')) ENGINE = ReplacingMergeTree(ts) ORDER BY (symbol, venue, instrument) SETTINGS non_replicated_deduplication_window = 1000",
      C,
    );
    assert.deepEqual(out, [
      "CREATE TABLE IF NOT EXISTS instruments_local ON CLUSTER gex_cluster (symbol String, venue String, instrument String, ts DateTime64(3, 'UTC')) ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/instruments_local', '{replica}', ts) ORDER BY (symbol, venue, instrument) SETTINGS replicated_deduplication_window = 1000",
      'CREATE TABLE IF NOT EXISTS instruments ON CLUSTER gex_cluster AS instruments_local ENGINE = Distributed(gex_cluster, currentDatabase(), instruments_local, cityHash64(symbol, venue, instrument))',
    ]);
  });

  test('an engine without arguments, a table created AS another, a view, column changes, a mutation, drops, an insert', () => {
    assert.equal(
      toClusterDdl(
        'CREATE TABLE market_trades_1h AS market_trades_1m ENGINE = AggregatingMergeTree ORDER BY (symbol, market, bucket)',
        C,
      )[0],
      "CREATE TABLE market_trades_1h_local ON CLUSTER gex_cluster AS market_trades_1m_local ENGINE = ReplicatedAggregatingMergeTree('/clickhouse/tables/{shard}/{database}/market_trades_1h_local', '{replica}') ORDER BY (symbol, market, bucket)",
    );
    assert.deepEqual(
      toClusterDdl(
        'CREATE MATERIALIZED VIEW IF NOT EXISTS v TO market_trades_1h AS SELECT symbol FROM market_trades_1m AS m JOIN perp_trades USING symbol GROUP BY symbol',
        C,
      ),
      [
        'CREATE MATERIALIZED VIEW IF NOT EXISTS v ON CLUSTER gex_cluster TO market_trades_1h_local AS SELECT symbol FROM market_trades_1m_local AS m JOIN perp_trades_local USING symbol GROUP BY symbol',
      ],
    );
    assert.deepEqual(toClusterDdl('ALTER TABLE option_tickers\n    ADD COLUMN IF NOT EXISTS bid Nullable(Float64)', C), [
      'ALTER TABLE option_tickers_local ON CLUSTER gex_cluster ADD COLUMN IF NOT EXISTS bid Nullable(Float64)',
      'ALTER TABLE option_tickers ON CLUSTER gex_cluster ADD COLUMN IF NOT EXISTS bid Nullable(Float64)',
    ]);
    assert.deepEqual(
      toClusterDdl('ALTER TABLE market_trades_1m UPDATE venue_mask = 1 WHERE venue_mask = 0 SETTINGS mutations_sync = 2', C),
      ['ALTER TABLE market_trades_1m_local ON CLUSTER gex_cluster UPDATE venue_mask = 1 WHERE venue_mask = 0 SETTINGS mutations_sync = 2'],
    );
    assert.deepEqual(toClusterDdl('ALTER TABLE some_mv MODIFY QUERY SELECT a FROM spot_trades', C), [
      'ALTER TABLE some_mv ON CLUSTER gex_cluster MODIFY QUERY SELECT a FROM spot_trades_local',
    ]);
    assert.deepEqual(toClusterDdl('DROP VIEW IF EXISTS some_mv', C), ['DROP VIEW IF EXISTS some_mv ON CLUSTER gex_cluster']);
    assert.deepEqual(toClusterDdl('DROP TABLE users', C), [
      'DROP TABLE users ON CLUSTER gex_cluster',
      'DROP TABLE users_local ON CLUSTER gex_cluster',
    ]);
    assert.deepEqual(toClusterDdl('INSERT INTO users SELECT * FROM users', C), ['INSERT INTO users SELECT * FROM users']);
  });

  test('refusals: unknown table, replicated or non-MergeTree engine, unknown statement, bad cluster name', () => {
    assert.throws(() => toClusterDdl('CREATE TABLE nope (a UInt8) ENGINE = MergeTree ORDER BY a', C), /nope has no sharding key/);
    assert.throws(() => toClusterDdl('CREATE TABLE users (a UInt8) ENGINE = Memory', C), ClusterDdlError);
    assert.throws(
      () => toClusterDdl("CREATE TABLE users (a UInt8) ENGINE = ReplicatedMergeTree('/p', 'r') ORDER BY a", C),
      ClusterDdlError,
    );
    assert.throws(() => toClusterDdl('RENAME TABLE users TO people', C), /no cluster rule/);
    assert.throws(() => toClusterDdl('ALTER TABLE users MODIFY TTL ts', C), /only column changes and mutations/);
    assert.throws(() => toClusterDdl('DROP VIEW v', 'gex; DROP'), /not a plain identifier/);
  });

  test('localizeSelect leaves unknown names and columns alone', () => {
    assert.equal(
      localizeSelect('SELECT from_ms FROM numbers(3) JOIN spot_trades ON 1'),
      'SELECT from_ms FROM numbers(3) JOIN spot_trades_local ON 1',
    );
  });
});

/** Single-node CREATE TABLE statements of every migration: table → ORDER BY columns. */
function createdTables(statements: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const sql of statements) {
    const m = /^CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)/i.exec(sql);
    if (m === null) continue;
    const order = /\bORDER\s+BY\s+(\([^)]*\)|\w+)/i.exec(sql)?.[1] ?? '';
    out.set(
      m[1] as string,
      order
        .replace(/[()]/g, '')
        .split(',')
        .map((c) => c.trim()),
    );
  }
  return out;
}

describe('the cluster variant of every migration', () => {
  const statements = loadMigrations().flatMap((m) => m.statements);
  const cluster = statements.map((sql) => ({ sql, out: toClusterDdl(sql, C) }));
  const all = cluster.flatMap((c) => c.out);
  let store: Store;
  let dispose: () => Promise<void>;
  before(async () => {
    ({ store, dispose } = await openTempStore());
  });
  after(async () => dispose());

  test('every generated statement parses with ClickHouse own parser (formatQuery): each transformed statement and the fresh-cluster plan', async () => {
    const plan = clusterPlan(loadMigrations(), C).flatMap((step) => step.statements);
    assert.equal(plan[0], clusterMigrationsTable(C));
    const queries = [...new Set([...all, ...plan])];
    for (const q of queries) {
      const [row] = await store.query<{ f: string }>('SELECT formatQuerySingleLine({q:String}) AS f', { q });
      assert.ok(row !== undefined && row.f.length > 0, q);
    }
    assert.ok(queries.length > statements.length, `${queries.length} cluster statements from ${statements.length}`);
  });

  test('the fresh-cluster plan runs 021 as three MODIFY QUERY ON CLUSTER, without a DROP', () => {
    const m021 = clusterPlan(loadMigrations(), C).find((step) => step.name === '021_market_venue_mask');
    assert.ok(m021 !== undefined);
    assert.equal(m021.statements.filter((q) => q.startsWith('DROP')).length, 0);
    assert.deepEqual(
      m021.statements.filter((q) => q.includes('MODIFY QUERY')).map((q) => q.split(' ').slice(0, 7).join(' ')),
      ['market_perp_trades_1m_mv', 'market_spot_trades_1m_mv', 'market_liquidations_1m_mv'].map(
        (v) => `ALTER TABLE ${v} ON CLUSTER ${C} MODIFY`,
      ),
    );
    assert.ok(
      m021.statements
        .filter((q) => q.includes('MODIFY QUERY'))
        .every((q) => /FROM (perp|spot)_trades_local|FROM liquidations_local/.test(q)),
    );
  });

  test('every DDL runs ON CLUSTER; inserts are unchanged; dedup windows are the replicated setting', () => {
    assert.ok(statements.some((q) => q.includes('non_replicated_deduplication_window = 1000')));
    assert.ok(all.every((q) => !q.includes('non_replicated_deduplication_window')));
    for (const q of all) {
      if (/^INSERT\s/i.test(q)) assert.ok(statements.includes(q));
      else assert.match(q, new RegExp(`\\bON CLUSTER ${C}\\b`), q);
    }
  });

  test('each table: replicated local engine with its zoo path, Distributed table with the sharding key of its ORDER BY columns', () => {
    const tables = createdTables(statements);
    assert.deepEqual(
      [...tables.keys()].sort(),
      Object.keys(SHARDING_KEYS).sort(),
      'SHARDING_KEYS lists exactly the tables the migrations create',
    );
    for (const [table, orderBy] of tables) {
      const local = all.find((q) => q.includes(`CREATE TABLE IF NOT EXISTS ${table}_local ON CLUSTER`));
      assert.ok(local !== undefined, table);
      assert.match(
        local,
        new RegExp(`ENGINE = Replicated\\w*MergeTree\\('/clickhouse/tables/\\{shard\\}/\\{database\\}/${table}_local', '\\{replica\\}'`),
      );
      const key = SHARDING_KEYS[table] as string;
      assert.ok(
        all.includes(
          `CREATE TABLE IF NOT EXISTS ${table} ON CLUSTER ${C} AS ${table}_local ENGINE = Distributed(${C}, currentDatabase(), ${table}_local, ${key})`,
        ),
        table,
      );
      const keyColumns = (/^cityHash64\((.*)\)$/.exec(key)?.[1] ?? '').split(',').map((c) => c.trim());
      for (const col of keyColumns)
        assert.ok(orderBy.includes(col), `${table}: sharding column ${col} is in ORDER BY (${orderBy.join(', ')})`);
    }
  });

  test('each engine keeps its kind and arguments (ReplacingMergeTree(ts) → ReplicatedReplacingMergeTree(path, replica, ts))', () => {
    for (const { sql, out } of cluster) {
      const m = /\bENGINE\s*=\s*(\w+)(\(([^)]*)\))?/i.exec(sql);
      if (m === null || !/^CREATE\s+TABLE/i.test(sql)) continue;
      const args = m[3] === undefined ? '' : `, ${m[3]}`;
      assert.match(
        out[0] as string,
        new RegExp(`ENGINE = Replicated${m[1] as string}\\('[^']+', '\\{replica\\}'${args.replace(/[()]/g, '\\$&')}\\)`),
        sql.slice(0, 60),
      );
    }
  });

  test('materialized views write local tables from local tables; column changes reach both tables; mutations the local one', () => {
    const views = all.filter((q) => q.startsWith('CREATE MATERIALIZED VIEW'));
    assert.ok(views.length >= 10, `${views.length} views`);
    for (const v of views) {
      assert.match(v, / TO \w+_local AS /);
      for (const from of v.matchAll(/\bFROM\s+(\w+)/gi)) assert.match(from[1] as string, /_local$/, v.slice(0, 80));
    }
    const alters = all.filter((q) => q.startsWith('ALTER TABLE'));
    assert.ok(alters.some((q) => q.startsWith('ALTER TABLE option_tickers_local ON CLUSTER') && q.includes('ADD COLUMN')));
    assert.ok(alters.some((q) => q.startsWith('ALTER TABLE option_tickers ON CLUSTER') && q.includes('ADD COLUMN')));
    assert.ok(alters.filter((q) => / UPDATE /.test(q)).every((q) => /^ALTER TABLE \w+_local /.test(q)));
  });
});
