import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { VIA_HTTP_ENV } from '#clickhouse/testing/temp-store.ts';

const root = new URL('../../', import.meta.url).pathname;

/** The store suite and the route suites, run once with every temp store reached through the ClickHouse HTTP endpoint. */
const SUITES = [
  'clickhouse/store.test.ts',
  'clickhouse/rows.test.ts',
  'clickhouse/query-columns.test.ts',
  'clickhouse/migrate.test.ts',
  'query-api/gex/routes.test.ts',
  'query-api/gex/levels.test.ts',
  'query-api/market/market.test.ts',
  'query-api/reference/reference.test.ts',
  'query-api/discovery/discovery.test.ts',
  'query-api/gex/as-of.test.ts',
];

/** Our environment for a child test run: not as a subprocess of this test runner (NODE_TEST_CONTEXT), stores over HTTP. */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, [VIA_HTTP_ENV]: '1', LOG_LEVEL: 'warn' };
  delete env['NODE_TEST_CONTEXT'];
  return env;
}

test(
  'store and route suites pass through the ClickHouse HTTP endpoint (the store client server path, @clickhouse/client over HTTP)',
  { timeout: 600_000 },
  () => {
    // TAP on every Node line (from Node 23 the default reporter is spec even into a pipe): the counts come from its `# name N` lines.
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', '--test-concurrency=1', ...SUITES], {
      cwd: root,
      encoding: 'utf8',
      env: childEnv(),
      maxBuffer: 64 * 1024 * 1024,
    });
    const count = (name: string): number => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(r.stdout)?.[1] ?? -1);
    const failures = r.stdout.split('\n').filter((l) => /^\s*not ok/.test(l));
    console.log(JSON.stringify({ tests: count('tests'), pass: count('pass'), fail: count('fail') }));
    assert.deepEqual(failures, []);
    assert.equal(r.status, 0, r.stderr.slice(-2000));
    assert.equal(count('fail'), 0);
    assert.equal(count('pass'), count('tests'));
    assert.ok(count('tests') >= 80, `${count('tests')} tests ran`);
  },
);
