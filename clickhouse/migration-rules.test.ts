import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadMigrations, MigrationError } from './migrate.ts';
import { stageViewSwaps, viewTarget, writerSafetyProblems, WRITER_SAFE_FROM } from './migration-rules.ts';

const DROP = 'DROP VIEW IF EXISTS mv_a';
const CREATE = 'CREATE MATERIALIZED VIEW IF NOT EXISTS mv_a TO t_a AS SELECT x, 1 AS y FROM src';

test('a dropped and re-created view that exists with the same target becomes one MODIFY QUERY', () => {
  const out = stageViewSwaps(['ALTER TABLE t_a ADD COLUMN IF NOT EXISTS y UInt8', DROP, CREATE, 'SELECT 1'], new Map([['mv_a', 't_a']]));
  assert.deepEqual(out, [
    'ALTER TABLE t_a ADD COLUMN IF NOT EXISTS y UInt8',
    'ALTER TABLE mv_a MODIFY QUERY SELECT x, 1 AS y FROM src',
    'SELECT 1',
  ]);
});

test('no swap when the view is missing, writes elsewhere, or is only dropped', () => {
  assert.deepEqual(stageViewSwaps([DROP, CREATE], new Map()), [DROP, CREATE]);
  assert.deepEqual(stageViewSwaps([DROP, CREATE], new Map([['mv_a', 'other']])), [DROP, CREATE]);
  assert.deepEqual(stageViewSwaps([DROP], new Map([['mv_a', 't_a']])), [DROP]);
});

test('migration 021 runs as three MODIFY QUERY on a store where 020 made its views', () => {
  const m021 = loadMigrations().find((m) => m.version === 21);
  assert.ok(m021);
  const views = new Map([
    ['market_perp_trades_1m_mv', 'market_trades_1m'],
    ['market_spot_trades_1m_mv', 'market_trades_1m'],
    ['market_liquidations_1m_mv', 'market_liquidations_1m'],
  ]);
  const out = stageViewSwaps(m021.statements, views);
  assert.equal(out.filter((s) => /^DROP\s/i.test(s)).length, 0);
  assert.deepEqual(
    out.filter((s) => /MODIFY QUERY/.test(s)).map((s) => s.split(' ')[2]),
    [...views.keys()],
  );
  assert.equal(out.length, m021.statements.length - 3);
});

test('viewTarget reads the TO table of a create_table_query', () => {
  assert.equal(viewTarget('CREATE MATERIALIZED VIEW default.mv TO default.market_trades_1m (`a` UInt8) AS SELECT 1'), 'market_trades_1m');
  assert.equal(viewTarget('CREATE MATERIALIZED VIEW db.mv TO `db`.`t_local` AS SELECT 1'), 't_local');
});

test(`migrations from ${WRITER_SAFE_FROM} on may not drop, truncate, detach, exchange or rename; older ones are not checked`, () => {
  const bad = [
    'DROP VIEW IF EXISTS v',
    'drop table t',
    'TRUNCATE TABLE t',
    'DETACH TABLE t',
    'EXCHANGE TABLES a AND b',
    'RENAME TABLE a TO b',
  ];
  const problems = writerSafetyProblems({
    version: WRITER_SAFE_FROM,
    name: '051_x',
    statements: [...bad, 'ALTER TABLE t ADD COLUMN c UInt8', 'CREATE TABLE IF NOT EXISTS dropped (a UInt8) ENGINE = MergeTree ORDER BY a'],
  });
  assert.equal(problems.length, bad.length);
  assert.match(problems[0] as string, /051_x: "DROP VIEW IF EXISTS v" drops or replaces/);
  assert.deepEqual(writerSafetyProblems({ version: 21, name: '021_x', statements: bad }), []);
});

test('loadMigrations refuses a new file with a DROP VIEW (the automated check), and every file of the folder passes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gex-unsafe-'));
  try {
    writeFileSync(
      join(dir, '060_swap.sql'),
      'ALTER TABLE t ADD COLUMN IF NOT EXISTS c UInt8;\nDROP VIEW IF EXISTS market_perp_trades_1m_mv;\n',
    );
    assert.throws(
      () => loadMigrations(dir),
      (e: unknown) => e instanceof MigrationError && /060_swap: "DROP VIEW IF EXISTS market_perp_trades_1m_mv"/.test(e.message),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.ok(loadMigrations().length >= 10);
});
