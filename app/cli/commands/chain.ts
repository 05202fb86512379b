import type { CliCommand } from '../command.ts';
import { ApiError } from '#query-api/envelope/errors.ts';
import { includeSet, venueFilter } from '#query-api/params/query-params.ts';
import { chainQuery, oiByExpiryQuery, venueBookQuery } from '#query-api/options/chain-schemas.ts';
import { chainFilter, chainView, expiryDays, oiByExpiryView, venueBookView } from '#query-api/options/chain-views.ts';
import { withTrades } from '#processors/analytics/chain-trades.ts';
import { readChainRowsFile, readChainTradesFile } from '../chain-rows-input.ts';
import type { ChainRowsFile } from '../chain-rows-input.ts';

const VIEWS = ['chain', 'venue-book', 'oi-by-expiry'] as const;
type View = (typeof VIEWS)[number];

/** The route's query parameters from `--query 'k=v&…'` plus the file's symbol, validated by the route's schema. */
function queryOf(view: View, file: ChainRowsFile, raw: string): Record<string, unknown> {
  const params = Object.fromEntries(new URLSearchParams(raw));
  if ('as_of' in params || 'symbol' in params) throw new Error('--query: symbol and as_of come from the rows file');
  const schema = view === 'chain' ? chainQuery : view === 'venue-book' ? venueBookQuery : oiByExpiryQuery;
  const r = schema.safeParse({ ...params, symbol: file.symbol });
  if (!r.success) throw new Error(`--query: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return r.data;
}

function dataOf(view: View, file: ChainRowsFile, raw: string): unknown {
  const q = queryOf(view, file, raw) as {
    exchanges?: string;
    include?: string;
    layout?: 'rows' | 'ladder';
    sort?: 'spread_bps' | 'spread_usd' | 'strike';
    min_venues?: number;
    limit?: number;
    type?: 'call' | 'put';
    strike_min?: string;
    strike_max?: string;
    moneyness?: string;
    expiry?: string;
    expiries?: string;
  };
  const venues = venueFilter(q.exchanges).venues;
  const rows = venues === undefined ? file.rows : file.rows.filter((r) => (venues as readonly string[]).includes(r.venue));
  const at = { symbol: file.symbol, t: file.t, spot: file.rows[0]?.spot ?? 0, rows };
  const breakdown = includeSet(q.include, ['exchange_breakdown'] as const).includes('exchange_breakdown');
  if (view === 'oi-by-expiry') return oiByExpiryView(at, breakdown);
  const f = chainFilter(q, expiryDays({ symbol: file.symbol, ...q }, file.rows));
  if (view === 'chain') return chainView(at, f, q.layout ?? 'rows', breakdown);
  return venueBookView(at, f, q.sort ?? 'spread_bps', q.min_venues ?? 1, q.limit ?? 500);
}

/**
 * `gex chain --rows FILE [--view chain|venue-book|oi-by-expiry] [--query 'expiry=27DEC24&type=call']`: the `data` of
 * /v2/options/chain, /v2/options/venue-book or /v2/options/oi/by-expiry for one stored chain (rows as `gex sql …
 * FORMAT JSONEachRow` prints them), with the route's own parameters. `--trades FILE` adds the rows' `trade_count` and
 * `notional_volume` (the chain trade statement of query-api/README.md, as `gex sql` prints it); without it they are null.
 * No store.
 */
export const chainCommand: CliCommand = {
  name: 'chain',
  usage: `chain --rows FILE [--trades FILE] [--view ${VIEWS.join('|')}] [--query 'PARAMS']`,
  summary: 'Print the consolidated chain, venue book or OI by expiry of stored chain rows.',
  async run({ flags }) {
    const view = (flags.get('view') ?? 'chain') as View;
    if (!VIEWS.includes(view)) {
      process.stderr.write(`gex chain: --view must be one of ${VIEWS.join(', ')}, got '${view}'\n`);
      return 2;
    }
    const path = flags.get('rows');
    if (path === undefined || path === 'true') {
      process.stderr.write('gex chain: --rows FILE is required\n');
      return 2;
    }
    try {
      const rowsFile = readChainRowsFile(path);
      const tradesPath = flags.get('trades');
      const file = tradesPath === undefined ? rowsFile : { ...rowsFile, rows: withTrades(rowsFile.rows, readChainTradesFile(tradesPath)) };
      process.stdout.write(`${JSON.stringify(dataOf(view, file, flags.get('query') ?? ''), null, 2)}\n`);
      return 0;
    } catch (err) {
      const message = err instanceof ApiError ? err.message : (err as Error).message;
      process.stderr.write(`gex chain: ${message}\n`);
      return 2;
    }
  },
};
