import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openTempStore } from './testing/temp-store.ts';
import { MERGE_THREADS_NICE } from './engine-config.ts';

test('the embedded engine runs its merges at MERGE_THREADS_NICE: the setting is in its config file and in effect', async () => {
  const { store, dataPath, dispose } = await openTempStore();
  try {
    assert.ok(
      Number.isInteger(MERGE_THREADS_NICE) && MERGE_THREADS_NICE > 0 && MERGE_THREADS_NICE <= 19,
      'a lower priority, no privilege needed',
    );
    const xml = readFileSync(join(dataPath, 'gex-access', 'config-default.xml'), 'utf8');
    assert.ok(xml.includes(`<os_threads_nice_value_merge_mutate>${MERGE_THREADS_NICE}</os_threads_nice_value_merge_mutate>`), xml);
    const rows = await store.query<{ value: string; changed: number }>(
      "SELECT value, changed FROM system.server_settings WHERE name = 'os_threads_nice_value_merge_mutate'",
    );
    assert.deepEqual(rows, [{ value: String(MERGE_THREADS_NICE), changed: 1 }]);
  } finally {
    await dispose();
  }
});
