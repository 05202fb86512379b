import { processAlive } from '#platform/process-alive.ts';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Where a running process that holds the embedded store says it serves the store's ClickHouse-compatible HTTP
 * endpoint (CLICKHOUSE_HTTP_PORT): `<DATA_DIR>/clickhouse-http.json`, `{ "url", "pid" }`, written when the
 * endpoint listens and removed at shutdown. `gex sql` reads it to query the running process (read-only user).
 */
export const STORE_ENDPOINT_FILE = 'clickhouse-http.json';

export function writeStoreEndpoint(dataDir: string, url: string): void {
  writeFileSync(join(dataDir, STORE_ENDPOINT_FILE), `${JSON.stringify({ url, pid: process.pid })}\n`);
}

export function removeStoreEndpoint(dataDir: string): void {
  rmSync(join(dataDir, STORE_ENDPOINT_FILE), { force: true });
}

/** The endpoint URL of the process holding the store under dataDir, when one is running and serving it. */
export function runningStoreEndpoint(dataDir: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(join(dataDir, STORE_ENDPOINT_FILE), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = JSON.parse(text) as { url?: unknown; pid?: unknown };
    if (typeof parsed.url !== 'string' || typeof parsed.pid !== 'number') return undefined;
    return processAlive(parsed.pid) ? parsed.url : undefined;
  } catch {
    return undefined; // a file cut short by a crash: as if absent
  }
}
