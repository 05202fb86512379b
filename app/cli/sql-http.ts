/**
 * `gex sql` over ClickHouse's HTTP interface: a ClickHouse server (CLICKHOUSE_URL) or the endpoint of the running
 * process that holds the embedded store. The query goes in the body, the output format and settings in the URL.
 */
export interface HttpSqlRequest {
  readonly url: string;
  readonly sql: string;
  readonly format: string;
  readonly database: string;
  /** Unset: no credentials (the endpoint's read-only default user). */
  readonly user?: string;
  readonly password?: string;
  /** URL settings in order; `readonly=1` goes last so the others are applied before it. */
  readonly settings: readonly (readonly [string, string])[];
}

export type HttpSqlResult = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly message: string };

export async function queryOverHttp(req: HttpSqlRequest): Promise<HttpSqlResult> {
  const url = new URL(req.url);
  url.searchParams.set('default_format', req.format);
  url.searchParams.set('database', req.database);
  for (const [k, v] of req.settings) url.searchParams.set(k, v);
  const headers: Record<string, string> = { 'content-type': 'text/plain; charset=UTF-8' };
  if (req.user !== undefined) {
    headers['x-clickhouse-user'] = req.user;
    headers['x-clickhouse-key'] = req.password ?? '';
  }
  try {
    const res = await fetch(url, { method: 'POST', headers, body: req.sql });
    const text = await res.text();
    return res.ok ? { ok: true, text } : { ok: false, message: text.trim() };
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    return { ok: false, message: `cannot reach ${url.origin}${cause === undefined ? '' : ` (${cause})`}: ${(err as Error).message}` };
  }
}

/** The settings `gex sql` sends to a ClickHouse server: the product's output conventions, then readonly = 1. */
export const SERVER_SQL_SETTINGS: readonly (readonly [string, string])[] = [
  ['session_timezone', 'UTC'],
  ['output_format_json_quote_64bit_integers', '1'],
  ['output_format_pretty_color', '0'],
  ['output_format_pretty_row_numbers', '0'],
  ['readonly', '1'],
];
