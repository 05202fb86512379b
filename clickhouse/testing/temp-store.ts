import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStore, type Store, type StoreOptions } from '../store.ts';
import { startClickHouseHttp } from '../http-endpoint.ts';

/** A fresh temp directory for one chDB data dir (one process per dir). */
export function tempDataPath(prefix = 'gex-ch-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

type TempStore = {
  readonly store: Store;
  readonly dataPath: string;
  /** Closes the store (and its endpoint) and keeps the files, for a caller that deletes them later. */
  close(): Promise<void>;
  /** close() and delete the dir. */
  dispose(): Promise<void>;
};

/** The TempStore of `dataPath` whose `close` releases the store. */
function tempStore(store: Store, dataPath: string, close: () => Promise<void>): TempStore {
  return {
    store,
    dataPath,
    close,
    async dispose(): Promise<void> {
      await close();
      rmSync(dataPath, { recursive: true, force: true });
    },
  };
}

/**
 * Set to 1, every temp store is the server client (@clickhouse/client over HTTP) talking to the ClickHouse HTTP
 * endpoint (clickhouse/http-endpoint.ts) over an embedded store, as the admin user: the store and route suites
 * run through the server code path (test/e2e/store-via-http.test.ts does so once).
 */
export const VIA_HTTP_ENV = 'GEX_TEST_STORE_VIA_HTTP';
const ADMIN_TOKEN = 'temp-store-admin-token';

/** Opens an embedded store in a fresh temp dir; `dispose` closes it and deletes the dir. */
export async function openTempStore(opts: Partial<StoreOptions> = {}): Promise<TempStore> {
  const dataPath = tempDataPath();
  if (process.env[VIA_HTTP_ENV] === '1') return openViaHttp(opts, dataPath);
  const store = await createStore({ ...opts, dataPath });
  return tempStore(store, dataPath, () => store.close());
}

async function openViaHttp(opts: Partial<StoreOptions>, dataPath: string): Promise<TempStore> {
  const embedded = await createStore({ dataPath, ...(opts.database !== undefined ? { database: opts.database } : {}) });
  const endpoint = await startClickHouseHttp({
    dataPath,
    database: opts.database ?? 'default',
    host: '127.0.0.1',
    port: 0,
    adminToken: ADMIN_TOKEN,
  });
  const store = await createStore({ ...opts, url: endpoint.url, username: 'admin', password: ADMIN_TOKEN, dataPath });
  return tempStore(store, dataPath, async () => {
    await store.close();
    await endpoint.close();
    await embedded.close();
  });
}
