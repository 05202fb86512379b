import { resolve } from 'node:path';
import type { Config } from '#platform/settings.ts';
import { createStore, type Store } from '#clickhouse/store.ts';

/** The store the configuration names: a ClickHouse server at CLICKHOUSE_URL, else chDB under DATA_DIR/clickhouse. */
export function openStore(config: Config): Promise<Store> {
  return createStore({
    url: config.clickhouseUrl,
    username: config.clickhouseUser,
    password: config.clickhousePassword,
    database: config.clickhouseDatabase,
    dataPath: resolve(config.dataDir, 'clickhouse'),
    readSessions: config.storeReadSessions,
  });
}
