import { mkdirSync } from 'node:fs';
import {
  createClient,
  ClickHouseLogLevel,
  type ClickHouseClient,
  type ClickHouseClientConfigOptions,
  type ClickHouseSettings,
} from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import { childLogger } from '../ops/log.ts';
import { StoreError, StoreQueryError, toStoreError, type StoreOp } from './errors.ts';
import { storeMetrics } from './metrics.ts';
import { isPlainIdentifier, paramsMismatch, type QueryParams } from './params.ts';

export type { QueryParams } from './params.ts';
export type StoreKind = 'server' | 'embedded';

export interface StoreOptions {
  /** ClickHouse HTTP(S) endpoint, e.g. http://127.0.0.1:8123. Absent: embedded chDB under `dataPath`. */
  readonly url?: string;
  readonly username?: string;
  readonly password?: string;
  /** Server: must already exist. Embedded: created if missing and made current. */
  readonly database?: string;
  /** chDB data directory (created if missing). One process per directory. */
  readonly dataPath: string;
  /** Server request timeout, default 30 s. */
  readonly requestTimeoutMs?: number;
  /** Rows per INSERT statement, default MAX_INSERT_ROWS; larger batches are split. */
  readonly maxInsertRows?: number;
}

export interface InsertOptions {
  /**
   * Idempotency key of this batch: a retry with the same token and the same rows is stored once. Tables
   * must have `non_replicated_deduplication_window` (or be Replicated*), as the raw tables do.
   */
  readonly dedupToken?: string;
}

export interface Store {
  readonly kind: StoreKind;
  /** Read rows (JSONEachRow). 64-bit integers come back as strings. */
  query<T>(sql: string, params?: QueryParams): Promise<T[]>;
  /** DDL or any statement without a result. */
  command(sql: string, params?: QueryParams): Promise<void>;
  /** Batched JSONEachRow insert; rows use column names as keys. */
  insert(table: string, rows: readonly object[], opts?: InsertOptions): Promise<void>;
  /** True when ClickHouse answers; never throws. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** Rows per INSERT statement; larger arrays are split (each chunk gets `token#i`). */
export const MAX_INSERT_ROWS = 100_000;

const BASE_SETTINGS: ClickHouseSettings = {
  output_format_json_quote_64bit_integers: 1,
  session_timezone: 'UTC',
};

const log = childLogger('clickhouse.store');

/**
 * Serialises the statements that set session-level settings. chDB applies per-query settings as
 * `SET k = v; <sql>` on one shared session, so they persist into later statements (a dedup token would
 * otherwise leak into the next insert). Every insert/command therefore sets the token explicitly and runs
 * one at a time; reads are not serialised.
 */
function createLock(): <R>(fn: () => Promise<R>) => Promise<R> {
  let tail: Promise<unknown> = Promise.resolve();
  return <R>(fn: () => Promise<R>): Promise<R> => {
    const run = tail.then(fn, fn);
    tail = run.catch(() => undefined);
    return run;
  };
}

function fail(err: unknown, op: StoreOp, context: Record<string, unknown>): never {
  const e = toStoreError(err, op);
  storeMetrics.errors.inc({ op });
  log.warn({ op, err: e.message, errName: e.name, ...context }, 'clickhouse operation failed');
  throw e;
}

function checkParams(sql: string, params: QueryParams, op: StoreOp): void {
  const mismatch = paramsMismatch(sql, params);
  if (mismatch !== null) fail(new StoreQueryError(`query parameters: ${mismatch}`, op, null, null), op, {});
}

function wrap(client: ClickHouseClient, kind: StoreKind, maxRows: number): Store {
  const serial = kind === 'embedded' ? createLock() : <R>(fn: () => Promise<R>): Promise<R> => fn();

  async function insertChunk(table: string, rows: readonly object[], token: string): Promise<void> {
    await client.insert({
      table,
      values: rows,
      format: 'JSONEachRow',
      clickhouse_settings: { async_insert: 0, insert_deduplicate: 1, insert_deduplication_token: token },
    });
  }

  return {
    kind,

    async query<T>(sql: string, params: QueryParams = {}): Promise<T[]> {
      checkParams(sql, params, 'query');
      const end = storeMetrics.queryDuration.startTimer();
      try {
        const rs = await client.query({ query: sql, query_params: params, format: 'JSONEachRow' });
        return await rs.json<T>();
      } catch (err) {
        return fail(err, 'query', {});
      } finally {
        end();
      }
    },

    async command(sql: string, params: QueryParams = {}): Promise<void> {
      checkParams(sql, params, 'command');
      try {
        await serial(() =>
          client.command({ query: sql, query_params: params, clickhouse_settings: { insert_deduplication_token: '' } }),
        );
      } catch (err) {
        fail(err, 'command', {});
      }
    },

    async insert(table: string, rows: readonly object[], opts: InsertOptions = {}): Promise<void> {
      if (!isPlainIdentifier(table)) fail(new StoreQueryError(`invalid table name ${JSON.stringify(table)}`, 'insert', null, null), 'insert', { table });
      if (rows.length === 0) return;
      const end = storeMetrics.insertDuration.startTimer({ table });
      try {
        const token = opts.dedupToken ?? '';
        if (rows.length <= maxRows) {
          await serial(() => insertChunk(table, rows, token));
        } else {
          for (let i = 0, n = 0; i < rows.length; i += maxRows, n++) {
            const chunk = rows.slice(i, i + maxRows);
            await serial(() => insertChunk(table, chunk, token === '' ? '' : `${token}#${n}`));
          }
        }
        storeMetrics.insertedRows.inc({ table }, rows.length);
      } catch (err) {
        fail(err, 'insert', { table, rows: rows.length });
      } finally {
        end();
      }
    },

    async ping(): Promise<boolean> {
      try {
        const r = await client.ping();
        if (!r.success) storeMetrics.errors.inc({ op: 'ping' });
        return r.success;
      } catch {
        storeMetrics.errors.inc({ op: 'ping' });
        return false;
      }
    },

    async close(): Promise<void> {
      await client.close();
    },
  };
}

/** Opens the store: @clickhouse/client over HTTP when `url` is set, else embedded chDB under `dataPath`. */
export async function createStore(opts: StoreOptions): Promise<Store> {
  const database = opts.database ?? 'default';
  if (!isPlainIdentifier(database) || database.includes('.')) {
    throw new StoreQueryError(`invalid database name ${JSON.stringify(database)}`, 'connect', null, null);
  }
  const logSettings = { level: ClickHouseLogLevel.OFF };
  const maxRows = Math.max(1, opts.maxInsertRows ?? MAX_INSERT_ROWS);
  if (opts.url !== undefined && opts.url !== '') {
    const client = createClient({
      url: opts.url,
      username: opts.username ?? 'default',
      password: opts.password ?? '',
      database,
      application: 'gex',
      request_timeout: opts.requestTimeoutMs ?? 30_000,
      clickhouse_settings: BASE_SETTINGS,
      log: logSettings,
    });
    log.info({ url: opts.url, database }, 'clickhouse store: server');
    return wrap(client, 'server', maxRows);
  }

  mkdirSync(opts.dataPath, { recursive: true });
  let client: ClickHouseClient | undefined;
  try {
    client = createClient({
      // chdb bundles its own copy of @clickhouse/client-common's types (structurally the same contract,
      // nominally different ClickHouseSettings); both packages are pinned together in package.json.
      connection: createChdbConnection({ path: opts.dataPath }) as unknown as ClickHouseClientConfigOptions['connection'],
      clickhouse_settings: BASE_SETTINGS,
      log: logSettings,
    });
    // Open the engine now so a locked or unreadable data dir fails here, not on the first query.
    await client.command({ query: 'SELECT 1' });
    if (database !== 'default') {
      await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` });
      await client.command({ query: `USE ${database}` });
    }
  } catch (err) {
    await client?.close().catch(() => undefined);
    const e = err instanceof StoreError ? err : new StoreError(`cannot open chDB at ${opts.dataPath}: ${err instanceof Error ? err.message : String(err)}`, 'connect', { cause: err });
    storeMetrics.errors.inc({ op: 'connect' });
    throw e;
  }
  log.info({ dataPath: opts.dataPath, database }, 'clickhouse store: embedded chDB');
  return wrap(client, 'embedded', maxRows);
}
