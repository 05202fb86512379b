import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { loadMigrations } from '#clickhouse/migrate.ts';

const root = new URL('../../', import.meta.url).pathname;
const gex = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'app/cli/main.ts', ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, LOG_LEVEL: 'warn' },
  });

test('gex migrate --print-cluster prints the DDL of every migration for that cluster, without a store; a bad name exits 2', () => {
  const r = gex('migrate', '--print-cluster', 'prod_ch');
  assert.equal(r.status, 0, r.stderr);
  const headers = [...r.stdout.matchAll(/^-- (\w+)$/gm)].map((m) => m[1]);
  assert.deepEqual(headers, ['schema_migrations', ...loadMigrations().map((m) => m.name)]);
  assert.match(
    r.stdout,
    /CREATE TABLE IF NOT EXISTS option_trades ON CLUSTER prod_ch AS option_trades_local ENGINE = Distributed\(prod_ch, currentDatabase\(\), option_trades_local, cityHash64\(venue, id\)\);/,
  );
  assert.doesNotMatch(r.stdout, /^DROP/m);
  const bad = gex('migrate', '--print-cluster', 'x y');
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /gex migrate: cluster name "x y" is not a plain identifier/);
});
