import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import type { ChdbResult, Session } from 'chdb';
import { checkEngineAccess, openEngineSession } from './engine-access.ts';
import { openReaderSession, runReadStatement, setStatement, SQL_PROFILE } from './reader-session.ts';

/**
 * The part of ClickHouse's HTTP interface that curl, @clickhouse/client and Grafana's ClickHouse data source use,
 * served by the process that holds the embedded store: GET /ping; GET or POST / with the query in the `query`
 * URL parameter and/or the body (an INSERT's data follows its query), `param_*` values for `{name:Type}`
 * placeholders, `default_format`, `database`, and any other URL parameter as a setting. Each request runs on its
 * own chDB session over the process's engine, so settings never leak between requests or into the product's
 * session. Every session starts from SQL_PROFILE (UTC, plain Pretty output). User `admin` with the admin token may
 * write; every other user is a reader (reader-session.ts): role gex_reader (market data, not the account tables),
 * `readonly = 1`, one read statement per request checked by the engine's parser before it runs.
 */
export interface ClickHouseHttpOptions {
  readonly dataPath: string;
  readonly database: string;
  readonly host: string;
  readonly port: number;
  /** Password of user `admin` (writes allowed). Unset: no writing user. */
  readonly adminToken?: string;
}

/** URL parameters of the HTTP protocol itself, not ClickHouse settings. */
const PROTOCOL_PARAMS = new Set([
  'query',
  'database',
  'default_format',
  'user',
  'password',
  'query_id',
  'quota_key',
  'session_id',
  'session_timeout',
  'session_check',
  'compress',
  'decompress',
  'buffer_size',
  'wait_end_of_query',
  'enable_http_compression',
  'send_progress_in_http_headers',
  'http_headers_progress_interval_ms',
  'http_response_buffer_size',
  'http_zlib_compression_level',
]);
const SETTING_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** ClickHouse error code -> HTTP status, as the server maps them. */
const STATUS_OF_CODE: Readonly<Record<number, number>> = { 62: 400, 60: 404, 81: 404, 164: 403, 497: 403, 516: 403 };

class HttpError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(`Code: ${code}. DB::Exception: ${message}`);
  }
}

function credentials(req: IncomingMessage, url: URL): { user: string; password: string } {
  const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
  if (basic !== undefined) {
    const [user = '', ...rest] = Buffer.from(basic, 'base64').toString('utf8').split(':');
    return { user, password: rest.join(':') };
  }
  const header = (name: string): string | undefined => {
    const v = req.headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  return {
    user: header('x-clickhouse-user') ?? url.searchParams.get('user') ?? 'default',
    password: header('x-clickhouse-key') ?? url.searchParams.get('password') ?? '',
  };
}

function isAdmin(user: string, password: string, token: string | undefined): boolean {
  if (user !== 'admin') return false;
  const a = Buffer.from(password);
  const b = Buffer.from(token ?? '');
  if (token === undefined || token === '' || a.length !== b.length || !timingSafeEqual(a, b))
    throw new HttpError(516, 'admin: Authentication failed: password is incorrect.');
  return true;
}

const ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '0': '\0' };

/**
 * A `param_*` value as ClickHouse reads it: in the escaped (TSV) format, so `\'`, `\\`, `\n`… are one character
 * (clients escape string values so). chDB binds the text as is, hence the unescaping here. Array, tuple and map
 * literals (`[…]`, `(…)`, `{…}`) are passed as they are: their quoted elements keep the literal syntax.
 */
export function unescapeParam(value: string): string {
  if (/^[[({]/.test(value)) return value;
  return value.replace(/\\(.)/gs, (_, c: string) => ESCAPES[c] ?? c);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Runs the admin's request as given: database, profile, the request's settings, then the query (any statement). */
async function runAsAdmin(
  session: Session,
  setup: readonly string[],
  sql: string,
  params: Record<string, string>,
  format: string,
): Promise<ChdbResult> {
  for (const statement of setup) await session.queryAsync(statement);
  return Object.keys(params).length > 0 ? session.queryBindAsync(sql, params, { format }) : session.queryAsync(sql, { format });
}

/** Runs one request on a fresh session: the admin's as given, a reader's through reader-session.ts. */
async function execute(opts: ClickHouseHttpOptions, req: IncomingMessage, url: URL): Promise<{ body: Buffer; format: string }> {
  const { user, password } = credentials(req, url);
  const admin = isAdmin(user, password, opts.adminToken);
  const body = await readBody(req);
  const inUrl = url.searchParams.get('query');
  const sql = inUrl === null ? body : body === '' ? inUrl : `${inUrl}\n${body}`;
  if (sql.trim() === '') throw new HttpError(62, 'Empty query.');
  const database = url.searchParams.get('database') ?? (req.headers['x-clickhouse-database'] as string | undefined) ?? opts.database;
  if (!SETTING_NAME.test(database)) throw new HttpError(81, `Database ${database} does not exist.`);
  const format = url.searchParams.get('default_format') ?? (req.headers['x-clickhouse-format'] as string | undefined) ?? 'TabSeparated';
  const params: Record<string, string> = {};
  const settings: [string, string][] = [];
  for (const [k, v] of url.searchParams) {
    if (k.startsWith('param_')) params[k.slice('param_'.length)] = unescapeParam(v);
    else if (!PROTOCOL_PARAMS.has(k)) {
      if (!SETTING_NAME.test(k)) throw new HttpError(115, `Unknown setting ${k}`);
      settings.push([k, v]);
    }
  }
  if (admin) {
    const session = openEngineSession(opts.dataPath, opts.database);
    try {
      const setup = [`USE ${database}`, ...[...SQL_PROFILE, ...settings].map(([k, v]) => setStatement(k, v))];
      return { body: Buffer.from((await runAsAdmin(session, setup, sql, params, format)).bytes()), format };
    } finally {
      session.close();
    }
  }
  const session = await openReaderSession(opts.dataPath, database, settings);
  try {
    return { body: Buffer.from((await runReadStatement(session, sql, format, params)).bytes()), format };
  } finally {
    session.close();
  }
}

function sendError(res: ServerResponse, err: unknown): void {
  const message = err instanceof Error ? err.message.trim() : String(err);
  const code = err instanceof HttpError ? err.code : Number(/Code: (\d+)\./.exec(message)?.[1] ?? 1002);
  res.writeHead(STATUS_OF_CODE[code] ?? 500, { 'content-type': 'text/plain; charset=UTF-8', 'x-clickhouse-exception-code': String(code) });
  res.end(`${message}\n`);
}

/**
 * Starts the endpoint. Fails when the engine does not enforce the reader role for opts.database (opened by a plain chDB
 * session), or when the port is taken (the listen error, code EADDRINUSE).
 */
export async function startClickHouseHttp(opts: ClickHouseHttpOptions): Promise<{ port: number; url: string; close(): Promise<void> }> {
  const probe = openEngineSession(opts.dataPath, opts.database);
  try {
    await checkEngineAccess(probe, opts.database);
  } finally {
    probe.close();
  }
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/ping' || (url.pathname === '/' && req.method === 'GET' && url.search === '')) {
      res.writeHead(200, { 'content-type': 'text/plain; charset=UTF-8' });
      res.end('Ok.\n');
      return;
    }
    if (url.pathname !== '/' || (req.method !== 'GET' && req.method !== 'POST')) {
      sendError(res, new HttpError(1002, `no handler for ${req.method ?? ''} ${url.pathname}`));
      return;
    }
    execute(opts, req, url).then(
      ({ body, format }) => {
        res.writeHead(200, {
          'content-type': format.startsWith('JSON') ? 'application/json; charset=UTF-8' : 'text/plain; charset=UTF-8',
          'x-clickhouse-format': format,
        });
        res.end(body);
      },
      (err: unknown) => sendError(res, err),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
