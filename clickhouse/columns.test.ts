import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadMigrations } from './migrate.ts';
import { RAW_TABLE_FAMILIES, type RawTable } from './rows.ts';
import { columnType, declaredColumns } from './columns.ts';
import { tableColumns } from './testing/ddl-columns.ts';
import { double, enumOf, optional, string, timestampMs, arrayOf, long, boolean } from '#schemas/family-dsl.ts';

const migrated = tableColumns(loadMigrations().flatMap((m) => m.statements));

test('every raw table has exactly the declared columns with the declared types (after all migrations)', () => {
  for (const [table, decl] of Object.entries(RAW_TABLE_FAMILIES) as [RawTable, (typeof RAW_TABLE_FAMILIES)[RawTable]][]) {
    const ddl = migrated.get(table);
    assert.ok(ddl, `${table}: no CREATE TABLE in the migrations`);
    const declared = declaredColumns(decl);
    for (const c of declared) assert.equal(ddl.get(c.name)?.type, c.type, `${table}.${c.name} (field ${decl.record}.${c.field})`);
    const undeclared = [...ddl.values()].filter((c) => !c.derived && !declared.some((d) => d.name === c.name)).map((c) => c.name);
    assert.deepEqual(undeclared, [], `${table}: columns not in the ${decl.record} declaration (schemas/families.ts)`);
  }
});

test('the reader finds every column of the raw tables in 001 (immutable, so these counts never change)', () => {
  const v1 = tableColumns(loadMigrations().find((m) => m.name === '001_raw_tables')?.statements ?? []);
  const counts = Object.fromEntries([...v1].filter(([t]) => t in RAW_TABLE_FAMILIES).map(([t, c]) => [t, c.size]));
  assert.deepEqual(counts, {
    instruments: 14,
    option_trades: 20,
    option_tickers: 20,
    perp_trades: 11,
    spot_trades: 11,
    perp_stats: 12,
    liquidations: 9,
    index_prices: 8,
    dead_letters: 7,
  });
});

test('the DDL reader follows ALTER ADD / MODIFY / DROP COLUMN and marks computed columns as derived', () => {
  const t = tableColumns([
    "CREATE TABLE IF NOT EXISTS t\n(\n    a LowCardinality(String),\n    b DateTime64(3,'UTC') CODEC(ZSTD(1)),\n    c Array(Float64) DEFAULT [],\n    INDEX ix a TYPE set(0) GRANULARITY 1\n)\nENGINE = MergeTree ORDER BY a",
    'ALTER TABLE t ADD COLUMN IF NOT EXISTS d Nullable(Float64), ADD COLUMN e UInt8 MATERIALIZED 1',
    'ALTER TABLE t MODIFY COLUMN a String',
    'ALTER TABLE t DROP COLUMN IF EXISTS c',
    'ALTER TABLE other ADD COLUMN x Int8',
  ]);
  assert.deepEqual(
    [...(t.get('t')?.values() ?? [])],
    [
      { name: 'a', type: 'String', derived: false },
      { name: 'b', type: "DateTime64(3, 'UTC')", derived: false },
      { name: 'd', type: 'Nullable(Float64)', derived: false },
      { name: 'e', type: 'UInt8', derived: true },
    ],
  );
  assert.equal(t.has('other'), false);
});

test('logical types map to the ClickHouse types of the conventions (README: Conventions)', () => {
  assert.equal(columnType(string('id')), 'String');
  assert.equal(columnType(string('venue', { lowCardinality: true })), 'LowCardinality(String)');
  assert.equal(columnType(enumOf('side', 'S', ['buy', 'sell'])), 'LowCardinality(String)');
  assert.equal(columnType(optional(enumOf('optionType', 'O', ['call', 'put']))), 'LowCardinality(Nullable(String))');
  assert.equal(columnType(optional(double('iv'))), 'Nullable(Float64)');
  assert.equal(columnType(optional(timestampMs('expiry'))), "Nullable(DateTime64(3, 'UTC'))");
  assert.equal(columnType(arrayOf(double('xs'))), 'Array(Float64)');
  assert.equal(columnType(long('n')), 'Int64');
  assert.equal(columnType(boolean('active')), 'Bool');
  assert.deepEqual(declaredColumns({ record: 'R', namespace: 'n', doc: '', fields: [timestampMs('nextFundingTime')] }), [
    { field: 'nextFundingTime', name: 'next_funding_time', type: "DateTime64(3, 'UTC')" },
  ]);
});
