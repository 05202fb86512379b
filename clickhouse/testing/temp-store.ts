import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStore, type Store, type StoreOptions } from '../store.ts';

/** A fresh temp directory for one chDB data dir (one process per dir). */
export function tempDataPath(prefix = 'gex-ch-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Opens an embedded store in a fresh temp dir; `dispose` closes it and deletes the dir. */
export async function openTempStore(
  opts: Partial<StoreOptions> = {},
): Promise<{ readonly store: Store; readonly dataPath: string; dispose(): Promise<void> }> {
  const dataPath = tempDataPath();
  const store = await createStore({ ...opts, dataPath });
  return {
    store,
    dataPath,
    async dispose(): Promise<void> {
      await store.close();
      rmSync(dataPath, { recursive: true, force: true });
    },
  };
}
