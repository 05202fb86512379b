import { mkdirSync } from 'node:fs';
import {
  createClient,
  ClickHouseLogLevel,
  type ClickHouseClient,
  type ClickHouseClientConfigOptions,
  type ClickHouseSettings,
} from '@clickhouse/client';
import { createChdbConnection, type ChdbConnection } from 'chdb/connection';
import type { Session } from 'chdb';
import { openEngineSession } from './engine-access.ts';
import { dataDirFileSystem, fileSystemWarning } from './data-dir-filesystem.ts';
import { childLogger } from '#platform/log.ts';
import { toJsonCompactEachRow } from './compact-rows.ts';
import { parseJsonEachRow, readColumns, statementIn, type ColumnsOptions, type StatementBody } from './read-formats.ts';
import { openReadSessions, type ReadSessions } from './read-sessions.ts';
import type { ColumnsResult } from './row-binary.ts';
import { StoreError, StoreQueryError, toStoreError, type StoreOp } from './errors.ts';
import { storeMetrics } from './metrics.ts';
import { isPlainIdentifier, paramsMismatch, type QueryParams } from './params.ts';

export type { QueryParams } from './params.ts';
export type { ColumnsOptions } from './read-formats.ts';
export {
  cellAt,
  textAt,
  type BytesColumn,
  type Cell,
  type ColumnsResult,
  type NumberColumn,
  type ResultColumn,
  type StringColumn,
} from './row-binary.ts';
export { StoreError, StoreQueryError, StoreUnavailableError } from './errors.ts';
export type StoreKind = 'server' | 'embedded';

export interface StoreOptions {
  /** ClickHouse HTTP(S) endpoint, e.g. http://127.0.0.1:8123. Absent or empty: embedded chDB under `dataPath`. */
  readonly url?: string;
  readonly username?: string;
  readonly password?: string;
  /** Server: must already exist. Embedded: created if missing and made current. Default `default`. */
  readonly database?: string;
  /** chDB data directory (created if missing). One process per directory. */
  readonly dataPath: string;
  /** Server request timeout, default 30 s. */
  readonly requestTimeoutMs?: number;
  /** Rows per INSERT statement, default MAX_INSERT_ROWS; larger batches are split. */
  readonly maxInsertRows?: number;
  /**
   * Embedded: chDB sessions that run the reads (query, queryColumns, queryBytes) in parallel with each other and with
   * the store's own session (inserts and commands), default READ_SESSIONS (read-sessions.ts).
   */
  readonly readSessions?: number;
}

export interface InsertOptions {
  /**
   * Idempotency key of this batch: a retry with the same token is stored once. The table must have
   * `non_replicated_deduplication_window` (or be Replicated*), as the raw tables do.
   */
  readonly dedupToken?: string;
}

export interface Store {
  readonly kind: StoreKind;
  /** Read rows (JSONEachRow). Values only through typed `{name:Type}` placeholders. 64-bit ints are strings. */
  query<T>(sql: string, params?: QueryParams): Promise<T[]>;
  /**
   * Read a result column-wise through the Native format (large numeric results: no number formatting or parsing,
   * several times cheaper than JSON, each column copied whole): numeric columns as Float64Array + NULL flags
   * (64-bit integers exact up to 2^53), string columns as arrays; `cellAt(column, i)` reads one value. Column
   * types: see clickhouse/native.ts. Same placeholders as `query`. `options.views`: String columns kept as ranges of
   * the result's bytes (BytesColumn), the result then released with `releaseColumns` when done.
   */
  queryColumns(sql: string, params?: QueryParams, options?: ColumnsOptions): Promise<ColumnsResult>;
  /**
   * The caller is done with a result of `queryColumns` (its BytesColumns are not read again): the store may free its
   * bytes now rather than at the next garbage collection. Only the replay thread's store does (it owns each result it
   * receives: query-api/replay/thread/port-store.ts); the others leave them to the collector.
   */
  releaseColumns(result: ColumnsResult): void;
  /**
   * The raw result of a statement whose SQL ends with its FORMAT clause (JSONEachRow, Native, ...), as the engine
   * wrote it: for a reader that decodes the bytes elsewhere (clickhouse/read-formats.ts), e.g. on another thread.
   * Same placeholders and session settings as `query`.
   */
  queryBytes(sql: string, params?: QueryParams): Promise<Uint8Array>;
  /** DDL or any statement without a result. */
  command(sql: string, params?: QueryParams): Promise<void>;
  /** Batched insert of row objects keyed by column name (times as epoch-ms numbers). */
  insert(table: string, rows: readonly object[], opts?: InsertOptions): Promise<void>;
  /** True when ClickHouse answers; never throws. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** Rows per INSERT statement; larger arrays are split (chunk i gets token `token#i`). */
export const MAX_INSERT_ROWS = 100_000;

/**
 * The embedded store's read sessions. Each running read holds a thread of libuv's pool (4 by default, shared with file
 * I/O and zlib) and the engine's own threads: two reads at once, beside an insert, keep both cores busy.
 */
export const READ_SESSIONS = 2;

/**
 * Sent with every request to a server (HTTP params). On chDB they are `SET` once on each of the store's sessions when
 * it opens: those sessions are the store's own (the SQL endpoint opens one per request) and settings persist on them,
 * whereas per-request settings would prefix every statement with one `SET` each (measured ≈1 ms a query).
 */
const BASE_SETTINGS: ClickHouseSettings = {
  output_format_json_quote_64bit_integers: 1,
  session_timezone: 'UTC',
};

/** The statements that give an embedded session the store's base settings and database. */
const sessionSetup = (database: string): string[] => [
  ...Object.entries(BASE_SETTINGS).map(([name, value]) => `SET ${name} = ${typeof value === 'string' ? `'${value}'` : String(value)}`),
  ...(database === 'default' ? [] : [`USE ${database}`]),
];

/**
 * Settings of every INSERT, with its dedup token. `parallel_view_processing`: the materialized views an INSERT feeds
 * (option_trades feeds three) run at once, so the INSERT, and the raw writer's data, is stored sooner: at a steady
 * 10,000 trades/s on 2 cores the receive -> stored p99 was 354 against 423 ms (mean of five alternating pairs,
 * bench/RESULTS.md "ingest").
 */
const insertSettings = (token: string) =>
  ({ async_insert: 0, insert_deduplicate: 1, insert_deduplication_token: token, parallel_view_processing: 1 }) as const;

type InsertChunk = (table: string, rows: readonly object[], token: string) => Promise<void>;

const log = childLogger('clickhouse.store');

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

/** Server: JSONEachRow through @clickhouse/client; settings travel as per-request HTTP parameters. */
function serverInsert(client: ClickHouseClient): InsertChunk {
  return async (table, rows, token) => {
    await client.insert({
      table,
      values: rows,
      format: 'JSONEachRow',
      clickhouse_settings: insertSettings(token),
    });
  };
}

/**
 * Embedded: chDB's raw insert (payload handed to the engine's parser zero-copy) in JSONCompactEachRow.
 * Its settings go into the statement's own SETTINGS clause. The @clickhouse/client path would `SET` them
 * on chDB's single session, where they persist: a dedup token would leak into the next insert and drop it.
 */
function embeddedInsert(conn: ChdbConnection): InsertChunk {
  return async (table, rows, token) => {
    const { columns, body } = toJsonCompactEachRow(rows);
    await conn.chdb.rawInsert({
      table,
      values: body,
      format: 'JSONCompactEachRow',
      columns,
      settings: insertSettings(token),
    });
  };
}

/** The raw response body of a statement (client.query only knows text and JSON formats); placeholders as in query(). */
async function execBody(client: ClickHouseClient, query: string, params: QueryParams): Promise<Uint8Array> {
  const rs = await client.exec({ query, query_params: params });
  const chunks: Buffer[] = [];
  for await (const chunk of rs.stream) chunks.push(chunk as Buffer);
  // chDB hands the whole result as one chunk: no copy then.
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
}

/** A read: its parameters checked, timed in store_query_duration_seconds, a failure logged, counted and typed. */
async function read<T>(sql: string, params: QueryParams, run: () => Promise<T>): Promise<T> {
  checkParams(sql, params, 'query');
  const end = storeMetrics.queryDuration.startTimer();
  try {
    return await run();
  } catch (err) {
    return fail(err, 'query', {});
  } finally {
    end();
  }
}

/** How a store reads: the raw body of a statement whose SQL ends with its FORMAT clause. */
type ReadBody = (sql: string, params: QueryParams) => Promise<Uint8Array>;

/** Reads through the client (a server's HTTP interface). */
const clientReads =
  (client: ClickHouseClient): ReadBody =>
  (sql, params) =>
    execBody(client, sql, params);

/** Reads on the embedded store's read sessions. */
const sessionReads =
  (sessions: ReadSessions): ReadBody =>
  async (sql, params) =>
    (await sessions.run(sql, params, 'CSV')).bytes();

function wrap(client: ClickHouseClient, kind: StoreKind, insertChunk: InsertChunk, maxRows: number, body: ReadBody): Store {
  const bodyOf =
    (params: QueryParams): StatementBody =>
    (statement) =>
      body(statement, params);
  return {
    kind,

    query: <T>(sql: string, params: QueryParams = {}): Promise<T[]> =>
      read(sql, params, async () => parseJsonEachRow<T>(await body(statementIn(sql.trim().replace(/;+$/, ''), 'JSONEachRow'), params))),

    queryColumns: (sql: string, params: QueryParams = {}, options: ColumnsOptions = {}): Promise<ColumnsResult> =>
      read(sql, params, () => readColumns(bodyOf(params), sql, '', options)),

    // A result here may share its memory (chDB's chunk, a pooled Buffer): left to the collector.
    releaseColumns: () => undefined,

    queryBytes: (sql: string, params: QueryParams = {}): Promise<Uint8Array> => read(sql, params, () => body(sql, params)),

    async command(sql: string, params: QueryParams = {}): Promise<void> {
      checkParams(sql, params, 'command');
      try {
        // An explicit empty token, so an INSERT … SELECT never inherits one set elsewhere on a chDB session.
        await client.command({ query: sql, query_params: params, clickhouse_settings: { insert_deduplication_token: '' } });
      } catch (err) {
        fail(err, 'command', {});
      }
    },

    async insert(table: string, rows: readonly object[], opts: InsertOptions = {}): Promise<void> {
      if (!isPlainIdentifier(table)) {
        fail(new StoreQueryError(`invalid table name ${JSON.stringify(table)}`, 'insert', null, null), 'insert', { table });
      }
      if (rows.length === 0) return;
      const end = storeMetrics.insertDuration.startTimer({ table });
      try {
        const token = opts.dedupToken ?? '';
        if (rows.length <= maxRows) {
          await insertChunk(table, rows, token);
        } else {
          for (let i = 0, n = 0; i < rows.length; i += maxRows, n++) {
            await insertChunk(table, rows.slice(i, i + maxRows), token === '' ? '' : `${token}#${n}`);
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
    return wrap(client, 'server', serverInsert(client), maxRows, clientReads(client));
  }

  mkdirSync(opts.dataPath, { recursive: true });
  let client: ClickHouseClient | undefined;
  let conn: ChdbConnection | undefined;
  let engine: Session | undefined;
  let reads: ReadSessions | undefined;
  try {
    // The engine opens with its access configuration (roles of the SQL endpoint's readers, engine-access.ts); this
    // session keeps it open while the store's own connection (same directory, same engine) is used.
    engine = openEngineSession(opts.dataPath, database);
    conn = createChdbConnection({ path: opts.dataPath });
    client = createClient({
      // chdb bundles its own copy of @clickhouse/client-common's types (same contract, nominally different
      // ClickHouseSettings type); both packages are pinned together in package.json.
      connection: conn as unknown as ClickHouseClientConfigOptions['connection'],
      log: logSettings,
    });
    // Opens the engine now (a locked or unreadable data dir fails here, not on the first query) and sets the
    // session's base settings once (they persist on a session).
    if (database !== 'default') await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` });
    for (const statement of sessionSetup(database)) await client.command({ query: statement });
    reads = await openReadSessions(opts.dataPath, database, Math.max(1, opts.readSessions ?? READ_SESSIONS), sessionSetup(database));
  } catch (err) {
    await (client ?? conn)?.close().catch(() => undefined);
    engine?.close();
    storeMetrics.errors.inc({ op: 'connect' });
    if (err instanceof StoreError) throw err;
    const message = err instanceof Error ? err.message : String(err);
    throw new StoreError(`cannot open chDB at ${opts.dataPath}: ${message}`, 'connect', { cause: err });
  }
  const fileSystem = dataDirFileSystem(opts.dataPath);
  log.info({ dataPath: opts.dataPath, database, fileSystem }, 'clickhouse store: embedded chDB');
  const warning = fileSystemWarning(fileSystem);
  if (warning !== null) log.warn({ dataPath: opts.dataPath, fileSystem }, warning);
  const store = wrap(client, 'embedded', embeddedInsert(conn), maxRows, sessionReads(reads));
  const holder = engine;
  const readers = reads;
  return {
    ...store,
    close: () => {
      readers.close();
      return store.close().finally(() => holder.close());
    },
  };
}
