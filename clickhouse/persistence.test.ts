import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadMigrations } from './migrate.ts';
import { optionTradeRow } from './rows.ts';
import { createStore } from './store.ts';
import { optionTrade } from './testing/fixtures.ts';
import { tempDataPath } from './testing/temp-store.ts';
import { msColumn } from './epoch-ms.ts';

const CHILD = fileURLToPath(new URL('./testing/persist-child.ts', import.meta.url));

function runChild(args: readonly string[]): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout }));
  });
}

describe('persistence across processes', () => {
  const dataPath = tempDataPath();
  after(() => rmSync(dataPath, { recursive: true, force: true }));

  test('rows written by a child that exits, and by one SIGKILLed after insert, are read back here', async () => {
    const a = await runChild([dataPath, 'exit', '0', '300']);
    assert.deepEqual([a.code, a.stdout], [0, 'inserted\n']);
    const b = await runChild([dataPath, 'kill', '300', '200']);
    assert.deepEqual([b.signal, b.stdout], ['SIGKILL', 'inserted\n']);

    const store = await createStore({ dataPath });
    try {
      assert.deepEqual(await store.query('SELECT count() AS n, uniqExact(id) AS u FROM option_trades'), [{ n: '500', u: '500' }]);
      const expected = optionTradeRow(optionTrade(499));
      const [row] = await store.query<Record<string, unknown>>(
        `SELECT * REPLACE (${msColumn('ts', 'ts')}, ${msColumn('received_at', 'received_at')}, ${msColumn('expiry', 'expiry')}) FROM option_trades WHERE id = {id:String}`,
        { id: expected.id },
      );
      assert.deepEqual(row, expected);
      // The migration recorded by the first child is not re-applied.
      const files = loadMigrations().length;
      assert.deepEqual(await store.query('SELECT count() AS n FROM schema_migrations'), [{ n: String(files) }]);

      // While this process holds the data dir, a second process cannot open it.
      const c = await runChild([dataPath, 'open']);
      assert.match(c.stdout, /^error:StoreError:cannot open chDB/);
    } finally {
      await store.close();
    }
  });
});
