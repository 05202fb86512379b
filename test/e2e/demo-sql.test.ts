import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { runningStoreEndpoint, STORE_ENDPOINT_FILE } from '#app/runtime/store-endpoint.ts';

const root = new URL('../../', import.meta.url).pathname;

/** Runs a line the demo printed, as a user pastes it into a second terminal (bash, the repository as working directory). */
function paste(line: string): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync('bash', ['-c', line], { cwd: root, encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'warn' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test(
  'npm run demo prints the SQL endpoint; its gex sql and curl lines answer in a second terminal; writes and account tables are refused',
  { timeout: 600_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gex-demo-sql-'));
    // The demo as `npm run demo` starts it (no CLICKHOUSE_HTTP_PORT), on free API ports and one venue to go easy on CI.
    const demo = spawn(process.execPath, ['--import', 'tsx', 'app/cli/main.ts', 'demo'], {
      cwd: root,
      env: { ...process.env, DATA_DIR: dir, PORT: '0', METRICS_PORT: '0', ADMIN_PORT: '0', SYMBOLS: 'BTCUSDT', VENUES: 'deribit' },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    demo.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    try {
      for (let i = 0; i < 600 && !/\n {2}curl '.*--data-binary.*\n/.test(out); i++) await sleep(500);
      const url = /^SQL \(ClickHouse HTTP, read-only\): (http:\/\/127\.0\.0\.1:\d+)$/m.exec(out)?.[1];
      assert.ok(url !== undefined, out);
      assert.equal(runningStoreEndpoint(dir), url, 'gex sql finds the endpoint through DATA_DIR');
      const sqlLine = /^ {2}(DATA_DIR=\S+ npx gex sql "SELECT count\(\) FROM option_trades")$/m.exec(out)?.[1];
      const curlLine = /^ {2}(curl '.*' --data-binary 'SELECT count\(\) FROM option_trades')$/m.exec(out)?.[1];
      assert.ok(sqlLine !== undefined && curlLine !== undefined, out);
      assert.match(
        out,
        /API key \(user demo, plan bundle_monthly = pro\): \S+\n {2}curl .*\/v2\/meta'\nSQL/,
        'next to the API key and its curl line',
      );

      // The sandbox's trades reach option_trades within seconds of the start: the printed line, pasted as is.
      let trades = 0;
      for (let i = 0; i < 10 && trades === 0; i++) {
        const r = paste(sqlLine);
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, /^┌─count\(\)─┐\n│ +\d+ │\n└─+┘\n$/);
        trades = Number(/\d+/.exec(r.stdout)?.[0]);
        if (trades === 0) await sleep(5_000);
      }
      assert.ok(trades > 0, 'gex sql answers with the running demo’s trades');
      const curled = paste(curlLine);
      assert.equal(curled.code, 0, curled.stderr);
      assert.ok(Number(curled.stdout) >= trades, curled.stdout);

      const write = paste(sqlLine.replace('SELECT count() FROM option_trades', 'INSERT INTO option_trades SELECT * FROM option_trades'));
      assert.equal(write.code, 1);
      assert.match(write.stderr, /^gex sql: Code: 164\. DB::Exception: Cannot execute INSERT in readonly mode/);
      const keys = paste(sqlLine.replace('SELECT count() FROM option_trades', 'SELECT * FROM api_keys'));
      assert.equal(keys.code, 1);
      assert.match(keys.stderr, /^gex sql: Code: 497\. .*Not enough privileges/);
    } finally {
      demo.kill('SIGINT');
      await new Promise((resolve) => demo.once('exit', resolve));
    }
    try {
      assert.equal(existsSync(join(dir, STORE_ENDPOINT_FILE)), false, 'the endpoint file is removed at shutdown');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
