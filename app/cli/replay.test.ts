/**
 * `gex replay`: the same window read straight from the store (--data-dir) and streamed from a running API (--url,
 * over a real socket) gives the same bytes. The store is seeded through the processor write path
 * (query-api/testing/gex-fixture.ts: BTCUSDT cycles at A, B, C of today 12:00 UTC and their option trades).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { migrate } from '#clickhouse/migrate.ts';
import { createStore } from '#clickhouse/store.ts';
import { SnapshotCache } from '#query-api/gex/snapshot-cache.ts';
import { A, C, seedGex } from '#query-api/testing/gex-fixture.ts';
import { freePort, testApp, userWithKey } from '#query-api/testing/harness.ts';

const root = new URL('../../', import.meta.url).pathname;

/** Runs `gex ARGS` without blocking this process (the API under test answers from it). */
function gex(dataDir: string, args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'app/cli/main.ts', ...args], {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: 'warn', DATA_DIR: dataDir },
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }),
    );
  });
}

const doneOf = (body: string): Record<string, unknown> => {
  const { history_clamp: _clamp, ...done } = JSON.parse(body.slice(body.lastIndexOf('{"type":"replay_done"'))) as Record<string, unknown>;
  return done;
};
const messagesOf = (body: string): string => body.slice(0, body.lastIndexOf('{"type":"replay_done"'));

test(
  'gex replay: --data-dir (the store) and --url (a running API) write identical NDJSON; bad input exits 2',
  { timeout: 600_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gex-replay-'));
    try {
      const dataPath = join(dir, 'clickhouse');
      let store = await createStore({ dataPath });
      await migrate(store);
      await seedGex(store);
      const key = await userWithKey(store, { userId: 'replay-cli', plan: 'enterprise' });
      await store.close();

      // The window ends at C (12:01 UTC today) or, earlier in the day, a second ago: `to` is never in the future, and
      // `from` is 3 h before the seeded ticks or before `to`, whichever is earlier (before 09:00 UTC the window is empty).
      const toMs = Math.min(C + 5_000, Date.now() - 1_000);
      const to = new Date(toMs).toISOString();
      const from = new Date(Math.min(A, toMs) - 3 * 3600_000).toISOString();
      const args = ['replay', 'levels.BTCUSDT.okx,deribit', 'tape.BTCUSDT,chain.BTCUSDT', '--from', from, '--to', to];
      const local = await gex(dir, [...args, '--data-dir', dir]);
      assert.equal(local.code, 0, local.stderr);
      const done = doneOf(local.stdout);
      assert.equal(done['type'], 'replay_done');
      if (Date.parse(to) > C) assert.deepEqual(done['counts'], { 'levels.BTCUSDT.deribit,okx': 3, 'tape.BTCUSDT': 6, 'chain.BTCUSDT': 3 });

      store = await createStore({ dataPath });
      const cache = new SnapshotCache(store, { pollMs: 0 });
      await cache.refresh();
      const app = await testApp(store, {}, { snapshots: cache });
      try {
        const port = await freePort();
        await app.listen({ port, host: '127.0.0.1' });
        const remote = await gex(dir, [...args, '--url', `http://127.0.0.1:${port}`, '--key', key]);
        assert.equal(remote.code, 0, remote.stderr);
        assert.equal(messagesOf(remote.stdout), messagesOf(local.stdout));
        assert.deepEqual(doneOf(remote.stdout), done);
        const refused = await gex(dir, [...args, '--url', `http://127.0.0.1:${port}`, '--key', 'gex_nope']);
        assert.equal(refused.code, 1);
        assert.match(refused.stderr, /401/);
      } finally {
        await app.close();
        await store.close();
      }

      const bad = await gex(dir, ['replay', 'tape.DOGEUSDT', '--from', 'x', '--to', to, '--data-dir', dir]);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /channels: unknown channel/);
      assert.match(bad.stderr, /from: an ISO-8601 instant/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
