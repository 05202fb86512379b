import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { loadConfig } from '#platform/settings.ts';
import { childLogger } from '#platform/log.ts';
import { createStore } from '#clickhouse/store.ts';
import { startSqlEndpoint } from './sql-endpoint.ts';
import { runningStoreEndpoint } from './store-endpoint.ts';

/** A port held by another listener for the duration of fn. */
async function withTakenPort(fn: (port: number) => Promise<void>): Promise<void> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  try {
    await fn(typeof address === 'object' && address !== null ? address.port : 0);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

test('CLICKHOUSE_HTTP_PORT: auto moves off a taken port and says where; a taken explicit port stops the start; off serves none', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gex-sql-endpoint-'));
  const store = await createStore({ dataPath: join(dir, 'clickhouse') });
  const log = childLogger('test');
  try {
    assert.equal(loadConfig({}).clickhouseHttpPort, 'auto', 'on by default');
    assert.equal(await startSqlEndpoint(loadConfig({ DATA_DIR: dir, CLICKHOUSE_HTTP_PORT: 'off' }), log), null);
    assert.equal(runningStoreEndpoint(dir), undefined);
    await withTakenPort(async (taken) => {
      const auto = await startSqlEndpoint(loadConfig({ DATA_DIR: dir }), log, taken);
      assert.ok(auto !== null);
      try {
        assert.match(auto.url, /^http:\/\/127\.0\.0\.1:\d+$/);
        assert.notEqual(new URL(auto.url).port, String(taken), 'another port than the taken one');
        assert.equal(runningStoreEndpoint(dir), auto.url, 'gex sql finds it');
        assert.equal(await (await fetch(`${auto.url}/`, { method: 'POST', body: 'SELECT 40 + 2' })).text(), '42\n');
      } finally {
        await auto.close();
      }
      assert.equal(runningStoreEndpoint(dir), undefined, 'closed: the endpoint file is gone');
      await assert.rejects(startSqlEndpoint(loadConfig({ DATA_DIR: dir, CLICKHOUSE_HTTP_PORT: String(taken) }), log), (err: Error) =>
        err.message.includes(`CLICKHOUSE_HTTP_PORT: port ${taken} on 127.0.0.1 is in use; choose another port, auto or off`),
      );
    });
    assert.throws(() => loadConfig({ CLICKHOUSE_HTTP_PORT: 'on' }), /CLICKHOUSE_HTTP_PORT/);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
