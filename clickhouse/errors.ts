/**
 * Typed store errors. The API maps `StoreUnavailableError` to 503 (ClickHouse cannot be reached or is
 * overloaded); every other failure is a `StoreQueryError` (bad SQL, unknown table, type mismatch, ...).
 */

export type StoreOp = 'query' | 'command' | 'insert' | 'ping' | 'connect';

export class StoreError extends Error {
  readonly op: StoreOp;
  constructor(message: string, op: StoreOp, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreError';
    this.op = op;
  }
}

/** ClickHouse could not be reached (connection refused/reset, DNS, timeout, proxy 5xx) or shed the load. */
export class StoreUnavailableError extends StoreError {
  constructor(message: string, op: StoreOp, options?: { cause?: unknown }) {
    super(message, op, options);
    this.name = 'StoreUnavailableError';
  }
}

/**
 * True when a store failure means "the store cannot be reached" (the API's 503 UPSTREAM_ERROR, the read breaker's
 * failures). A closed embedded connection is reported as a StoreQueryError by toStoreError; for a client it is an
 * unavailable store all the same.
 */
export function isStoreUnavailable(err: unknown): boolean {
  if (err instanceof StoreUnavailableError || (err instanceof Error && err.name === 'StoreUnavailableError')) return true;
  return err instanceof StoreError && /connection is closed/i.test(err.message);
}

/** ClickHouse answered with an error (or the request was rejected before it was sent). */
export class StoreQueryError extends StoreError {
  /** ClickHouse error code (e.g. '60'), when ClickHouse produced the error. */
  readonly code: string | null;
  /** ClickHouse error type (e.g. 'UNKNOWN_TABLE'), when ClickHouse produced the error. */
  readonly type: string | null;
  constructor(message: string, op: StoreOp, code: string | null, type: string | null, options?: { cause?: unknown }) {
    super(message, op, options);
    this.name = 'StoreQueryError';
    this.code = code;
    this.type = type;
  }
}

/** Socket/DNS/undici error codes meaning "the server is not there right now". */
const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'EPIPE',
  'ESOCKETTIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** ClickHouse error codes that mean overload/network trouble rather than a bad request. */
const UNAVAILABLE_CLICKHOUSE_CODES: ReadonlySet<string> = new Set([
  '202', // TOO_MANY_SIMULTANEOUS_QUERIES
  '209', // SOCKET_TIMEOUT
  '210', // NETWORK_ERROR
]);

function field(err: unknown, name: string): unknown {
  return typeof err === 'object' && err !== null ? (err as Record<string, unknown>)[name] : undefined;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Classifies anything thrown by @clickhouse/client (HTTP) or chdb/connection (embedded). ClickHouse errors
 * are recognised by shape (numeric `code` + `type`): chDB ships its own copy of the ClickHouseError class,
 * so `instanceof` is not reliable.
 */
export function toStoreError(err: unknown, op: StoreOp): StoreError {
  if (err instanceof StoreError) return err;
  const code = field(err, 'code');
  const type = field(err, 'type');
  const message = messageOf(err);
  if (typeof code === 'string' && /^\d+$/.test(code) && typeof type === 'string') {
    if (UNAVAILABLE_CLICKHOUSE_CODES.has(code)) {
      return new StoreUnavailableError(`ClickHouse unavailable (${type}): ${message}`, op, { cause: err });
    }
    return new StoreQueryError(message, op, code, type, { cause: err });
  }
  // chDB native errors (ChdbQueryError/ChdbInsertError): numeric `clickhouseCode`, type at the message end.
  const nativeCode = field(err, 'clickhouseCode');
  if (typeof nativeCode === 'number') {
    const nativeType = /\(([A-Z][A-Z0-9_]+)\)\s*$/.exec(message.trim())?.[1] ?? null;
    return new StoreQueryError(message, op, String(nativeCode), nativeType, { cause: err });
  }
  if (typeof code === 'string' && NETWORK_CODES.has(code)) {
    return new StoreUnavailableError(`ClickHouse unreachable (${code}): ${message}`, op, { cause: err });
  }
  if (/timeout/i.test(message)) {
    return new StoreUnavailableError(`ClickHouse timed out: ${message}`, op, { cause: err });
  }
  // A non-ClickHouse HTTP error body (load balancer/proxy 502/503/504 page, or an empty body).
  if (message.trim() === '' || /\b(502|503|504)\b|bad gateway|service unavailable|gateway time-?out/i.test(message)) {
    return new StoreUnavailableError(`ClickHouse unavailable: ${message || 'empty error response'}`, op, { cause: err });
  }
  return new StoreQueryError(message, op, null, null, { cause: err });
}
