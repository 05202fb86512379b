import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeStoreEndpoint, runningStoreEndpoint, STORE_ENDPOINT_FILE, writeStoreEndpoint } from './store-endpoint.ts';

test('the endpoint file: found while its process lives; a dead process, a cut file or no file count as no running endpoint', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gex-endpoint-'));
  try {
    assert.equal(runningStoreEndpoint(dir), undefined);
    writeStoreEndpoint(dir, 'http://127.0.0.1:8123');
    assert.equal(runningStoreEndpoint(dir), 'http://127.0.0.1:8123');
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    writeFileSync(join(dir, STORE_ENDPOINT_FILE), JSON.stringify({ url: 'http://127.0.0.1:1', pid: Number(dead) }));
    assert.equal(runningStoreEndpoint(dir), undefined, 'the process that wrote it has exited');
    writeFileSync(join(dir, STORE_ENDPOINT_FILE), '{"url": "http://127.0.0.1:81');
    assert.equal(runningStoreEndpoint(dir), undefined);
    writeStoreEndpoint(dir, 'http://127.0.0.1:8123');
    removeStoreEndpoint(dir);
    removeStoreEndpoint(dir);
    assert.equal(runningStoreEndpoint(dir), undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
