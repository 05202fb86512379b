import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadMigrations, migrate, MigrationError, MIGRATIONS_DIR } from './migrate.ts';
import { optionTickerRow } from './rows.ts';
import type { Store } from './store.ts';
import * as fx from './testing/fixtures.ts';
import { openTempStore } from './testing/temp-store.ts';

const RAW = [
  'dead_letters',
  'index_prices',
  'instruments',
  'liquidations',
  'option_tickers',
  'option_trades',
  'perp_stats',
  'perp_trades',
  'spot_trades',
];

describe('migrate', () => {
  let store: Store;
  let dispose: () => Promise<void>;
  let dir: string;
  before(async () => {
    const t = await openTempStore();
    store = t.store;
    dispose = t.dispose;
    dir = mkdtempSync(join(tmpdir(), 'gex-migrations-'));
    // Only 001: other teams add later migrations to the real folder; these tests own their own set.
    cpSync(join(MIGRATIONS_DIR, '001_raw_tables.sql'), join(dir, '001_raw_tables.sql'));
  });
  after(async () => {
    await dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  test('first run applies 001 and creates every raw table; second run applies nothing', async () => {
    assert.deepEqual(await migrate(store, { dir }), { applied: ['001_raw_tables'] });
    const tables = await store.query<{ name: string; engine: string }>(
      "SELECT name, engine FROM system.tables WHERE database = currentDatabase() AND name != 'schema_migrations' ORDER BY name",
    );
    assert.deepEqual(
      tables.map((t) => t.name),
      RAW,
    );
    assert.ok(tables.every((t) => t.engine === 'ReplacingMergeTree'));
    assert.deepEqual(await migrate(store, { dir }), { applied: [] });
    const recorded = await store.query<{ version: number; name: string; checksum: string; age: number }>(
      "SELECT version, name, checksum, dateDiff('second', applied_at, now64(3, 'UTC')) AS age FROM schema_migrations",
    );
    const [m] = loadMigrations(dir);
    assert.equal(recorded.length, 1);
    assert.deepEqual({ ...recorded[0], age: undefined }, { version: 1, name: '001_raw_tables', checksum: m?.checksum, age: undefined });
    assert.ok(recorded[0] !== undefined && recorded[0].age >= 0 && recorded[0].age < 60);
  });

  test('a new migration with several statements is applied once, in order', async () => {
    writeFileSync(
      join(dir, '002_extra.sql'),
      "-- two statements; and a ';' in a comment\nCREATE TABLE IF NOT EXISTS t_extra (s String) ENGINE = MergeTree ORDER BY s;\n\nINSERT INTO t_extra VALUES ('a;b'), ('it''s');\n",
    );
    assert.deepEqual(await migrate(store, { dir }), { applied: ['002_extra'] });
    assert.deepEqual(await migrate(store, { dir }), { applied: [] });
    assert.deepEqual(await store.query('SELECT s FROM t_extra ORDER BY s'), [{ s: 'a;b' }, { s: "it's" }]);
  });

  test('refuses to run when an applied migration file changed', async () => {
    appendFileSync(join(dir, '001_raw_tables.sql'), '\n-- edited\n');
    writeFileSync(join(dir, '003_never.sql'), 'CREATE TABLE t_never (s String) ENGINE = Memory;');
    await assert.rejects(
      migrate(store, { dir }),
      (e: unknown) => e instanceof MigrationError && /001_raw_tables was changed/.test(e.message),
    );
    const never = await store.query("SELECT name FROM system.tables WHERE name = 't_never'");
    assert.deepEqual(never, [], 'nothing applied after a refusal');
    rmSync(join(dir, '003_never.sql'));
  });

  test('refuses when an applied file is missing, or comes back with other content', async () => {
    cpSync(join(MIGRATIONS_DIR, '001_raw_tables.sql'), join(dir, '001_raw_tables.sql'));
    rmSync(join(dir, '002_extra.sql'));
    await assert.rejects(migrate(store, { dir }), /002_extra is missing/);
    writeFileSync(join(dir, '002_extra.sql'), 'x');
    await assert.rejects(migrate(store, { dir }), /002_extra was changed/);
  });

  test('file names must be NNN_name.sql', () => {
    const bad = mkdtempSync(join(tmpdir(), 'gex-migrations-bad-'));
    writeFileSync(join(bad, '1-oops.sql'), 'SELECT 1');
    assert.throws(() => loadMigrations(bad), /not named NNN_name\.sql/);
    rmSync(bad, { recursive: true });
  });

  test('TTL: an option ticker older than 90 days goes at the next TTL merge, a fresh one stays', async () => {
    // The row mapper writes the columns added after v1 too (050).
    for (const sql of loadMigrations().find((m) => m.name === '050_option_ticker_book')?.statements ?? []) await store.command(sql);
    const old = optionTickerRow({ ...fx.optionTicker, id: 'old', ts: Date.now() - 200 * 86_400_000 });
    await store.insert('option_tickers', [old, optionTickerRow(fx.optionTicker)]);
    await store.command('OPTIMIZE TABLE option_tickers FINAL');
    assert.deepEqual(await store.query('SELECT id FROM option_tickers ORDER BY id'), [{ id: fx.optionTicker.id }]);
  });
});

describe('migrate: the real migrations folder', () => {
  test('applies every file once, in order; a second run applies nothing', async () => {
    const { store, dispose } = await openTempStore();
    try {
      const names = loadMigrations().map((m) => m.name);
      assert.equal(names[0], '001_raw_tables');
      assert.deepEqual(await migrate(store), { applied: names });
      assert.deepEqual(await migrate(store), { applied: [] });
    } finally {
      await dispose();
    }
  });
});

describe('migrate: out-of-order', () => {
  test('a new file numbered below the newest applied version is refused', async () => {
    const { store, dispose } = await openTempStore();
    const dir = mkdtempSync(join(tmpdir(), 'gex-migrations-ooo-'));
    try {
      writeFileSync(join(dir, '001_a.sql'), 'CREATE TABLE IF NOT EXISTS a (x UInt8) ENGINE = Memory');
      writeFileSync(join(dir, '003_c.sql'), 'CREATE TABLE IF NOT EXISTS c (x UInt8) ENGINE = Memory');
      assert.deepEqual(await migrate(store, { dir }), { applied: ['001_a', '003_c'] });
      writeFileSync(join(dir, '002_b.sql'), 'CREATE TABLE IF NOT EXISTS b (x UInt8) ENGINE = Memory');
      await assert.rejects(migrate(store, { dir }), /002_b is numbered below the newest applied version 3/);
    } finally {
      await dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
