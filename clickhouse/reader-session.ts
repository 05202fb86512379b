import type { ChdbResult, Session } from 'chdb';
import { openEngineSession, READER_ROLE } from './engine-access.ts';

/**
 * Read-only SQL sessions on the embedded store: the HTTP endpoint's users other than admin, and `gex sql` on DATA_DIR.
 * Three layers, each the engine's own:
 * 1. role `gex_reader` (engine-access.ts): what a query may reach: the product database without the account tables;
 * 2. `readonly = 1`: no writes, DDL, temporary tables or settings changes, set after the few settings a reader may
 *    choose (READER_SETTINGS: a query's own limits, which Grafana's ClickHouse data source sends with every query);
 * 3. one statement per query, a read, parsed by the engine's parser before it runs (checkReadStatement): a session
 *    could otherwise leave its role (SET ROLE), stop other sessions' queries (KILL QUERY, all sessions are the same
 *    engine user), write a file on the host (INTO OUTFILE is done by chDB's client side, outside readonly) or read
 *    one (the file() function, which the engine checks no grant for).
 */

/** The product's SQL conventions, first on every session: UTC, 64-bit integers quoted in JSON, plain Pretty output. */
export const SQL_PROFILE: readonly (readonly [string, string])[] = [
  ['session_timezone', 'UTC'],
  ['output_format_json_quote_64bit_integers', '1'],
  ['output_format_pretty_color', '0'],
  ['output_format_pretty_row_numbers', '0'],
];

/** Settings a reader may set per query: its own limits, and the output conventions the product's store client sends. */
export const READER_SETTINGS: ReadonlySet<string> = new Set([
  'max_execution_time',
  'timeout_overflow_mode',
  'max_result_rows',
  'max_result_bytes',
  'result_overflow_mode',
  'session_timezone',
  'output_format_json_quote_64bit_integers',
]);

const SETTING_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `SET name = 'value'` (the value as a string literal: ClickHouse converts it to the setting's type). */
export function setStatement(name: string, value: string): string {
  if (!SETTING_NAME.test(name)) throw new Error(`Code: 115. DB::Exception: Unknown setting ${name}. (UNKNOWN_SETTING)`);
  return `SET ${name} = '${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * The statements that make a session a reader, in order: database, profile, role, the reader's own settings, readonly,
 * then every other requested setting (the engine refuses them in readonly mode, with its own message).
 */
export function readerSetup(database: string, settings: readonly (readonly [string, string])[]): string[] {
  const allowed = settings.filter(([k]) => READER_SETTINGS.has(k));
  const others = settings.filter(([k]) => !READER_SETTINGS.has(k));
  return [
    `USE ${database}`,
    ...SQL_PROFILE.map(([k, v]) => setStatement(k, v)),
    `SET ROLE ${READER_ROLE}`,
    ...allowed.map(([k, v]) => setStatement(k, v)),
    'SET readonly = 1',
    ...others.map(([k, v]) => setStatement(k, v)),
  ];
}

/** A fresh reader session (closed again if a setup statement fails). */
export async function openReaderSession(
  dataPath: string,
  database: string,
  settings: readonly (readonly [string, string])[] = [],
): Promise<Session> {
  const session = openEngineSession(dataPath, database);
  try {
    for (const statement of readerSetup(database, settings)) await session.queryAsync(statement);
    return session;
  } catch (err) {
    session.close();
    throw err;
  }
}

/** The statements a reader runs: the canonical (formatted) text starts with one of these keywords. */
const READ_KINDS = ['SELECT', 'WITH', 'SHOW', 'DESCRIBE', 'EXISTS', 'EXPLAIN'];
/** INTO OUTFILE, on a line of its own in the canonical text (string literals are escaped there: no line break inside). */
const INTO_OUTFILE = /^\s*INTO OUTFILE\b/m;
/** String literals and quoted identifiers of the canonical text (a function name is never quoted there). */
const QUOTED = /'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`/g;
/** A function call in the canonical text: a name right before its parenthesis (not part of a longer word). */
const CALL = /(?<![\w.$])([A-Za-z_][A-Za-z0-9_]*)\s*\(/g;

/** The names called as functions (or table functions) in the canonical text of a statement. */
export function calledNames(canonical: string): string[] {
  const code = canonical.replace(QUOTED, "''");
  return [...new Set([...code.matchAll(CALL)].map((m) => m[1] ?? ''))];
}

function readOnlyRefusal(what: string): Error {
  return new Error(
    `Code: 164. DB::Exception: Cannot execute ${what} in readonly mode: a read-only user runs one ` +
      `${READ_KINDS.slice(0, -1).join(', ')} or ${READ_KINDS.at(-1) ?? ''} statement per query, without INTO OUTFILE. (READONLY)`,
  );
}

/** The parser's error about the statement, as a server words it: without the wrapping formatQuery call it was found in. */
function parserError(err: unknown): Error {
  const message = err instanceof Error ? err.message : String(err);
  const m = /^([\s\S]*?):? In scope SELECT formatQuery\([\s\S]*\) AS q\. \((\w+)\)\s*$/.exec(message);
  if (m === null) return new Error(message);
  const text = (m[1] ?? '').trim();
  return new Error(`${text}${text.endsWith('.') ? '' : '.'} (${m[2] ?? ''})`);
}

/**
 * Refuses anything but one read statement without INTO OUTFILE. The engine parses the text (formatQuery of it as a
 * bound string: nothing of it runs): several statements are its syntax error, as on a ClickHouse server's HTTP
 * interface; the kind is the first keyword of the canonical text, which has no comments and upper-case keywords.
 */
export async function checkReadStatement(session: Session, sql: string): Promise<void> {
  let canonical: string;
  try {
    const r = await session.queryBindAsync('SELECT formatQuery({sql:String}) AS q', { sql }, { format: 'JSONEachRow' });
    canonical = (JSON.parse(r.text()) as { q: string }).q;
  } catch (err) {
    throw parserError(err);
  }
  const kind = /^[A-Z]+/.exec(canonical)?.[0] ?? canonical.slice(0, 20);
  if (!READ_KINDS.includes(kind)) throw readOnlyRefusal(kind);
  if (INTO_OUTFILE.test(canonical)) throw readOnlyRefusal('INTO OUTFILE');
  const forbidden = await forbiddenCalls(session, calledNames(canonical));
  if (forbidden.length > 0)
    throw new Error(
      `Code: 497. DB::Exception: a read-only user may not call ${forbidden.join(', ')}: file() reads the host's files ` +
        '(the embedded engine has no user_files_path), a user-defined function may wrap it. (ACCESS_DENIED)',
    );
}

/**
 * Of the names a statement calls: `file` (it reads any file the process can read, e.g. DATA_DIR/api-admin.token: the
 * engine checks no grant for it) and any user-defined function (an admin's, which could call file()).
 */
async function forbiddenCalls(session: Session, names: readonly string[]): Promise<string[]> {
  const file = names.filter((n) => n.toLowerCase() === 'file');
  const others = names.filter((n) => n.toLowerCase() !== 'file');
  if (others.length === 0) return file;
  const r = await session.queryBindAsync(
    "SELECT groupArray(name) AS names FROM system.functions WHERE origin != 'System' AND name IN {names:Array(String)}",
    { names: others },
    { format: 'JSONEachRow' },
  );
  return [...file, ...(JSON.parse(r.text()) as { names: string[] }).names];
}

/** Checks the statement (checkReadStatement), then runs it on the reader session. */
export async function runReadStatement(
  session: Session,
  sql: string,
  format: string,
  params: Readonly<Record<string, string>> = {},
): Promise<ChdbResult> {
  await checkReadStatement(session, sql);
  return Object.keys(params).length > 0 ? session.queryBindAsync(sql, params, { format }) : session.queryAsync(sql, { format });
}
