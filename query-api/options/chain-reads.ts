/**
 * The API's reads of the consolidated chain (option_chain_snapshots*, migration 059). The instant of a request is
 * the newest stored chain at or before the bound (never after), looked up tier by tier from the finest (30 s,
 * 3 days) to the coarsest (1 h, 366 days): each lookup reads backwards on the primary key (symbol, computed_at)
 * within a window, then one unbounded lookup on the hourly tier. The rows of an instant are one key range; a crash
 * duplicate (the same row twice) is dropped and the rows sorted by (venue, instrument) in the reader.
 */
import { msColumn, msParam } from '#clickhouse/epoch-ms.ts';
import { cellAt } from '#clickhouse/row-binary.ts';
import type { ColumnsResult, ResultColumn } from '#clickhouse/row-binary.ts';
import type { Store } from '#clickhouse/store.ts';
import { CHAIN_TIERS } from '#processors/snapshots/option-chain-record.ts';
import type { OptionChainRow } from '#processors/snapshots/option-chain.ts';
import { chainTradeWindow, withTrades, type ContractTrades } from '#processors/analytics/chain-trades.ts';
import type { MarketSymbol, OptionType } from '#schemas/events.ts';

export interface ChainInstant {
  /** computed_at of the chain, ms UTC. */
  readonly t: number;
  /** The retention tier it was read from. */
  readonly table: string;
}

/** Lookup window per tier (a few steps of the tier: a missed tick or two still finds the previous one). */
const WINDOW_MS: Readonly<Record<string, number>> = {
  option_chain_snapshots: 600_000,
  option_chain_snapshots_5m: 3_600_000,
  option_chain_snapshots_1h: 86_400_000,
};

const atOrBefore = (table: string, bounded: boolean): string => `SELECT ${msColumn('computed_at', 't')} FROM ${table}
WHERE symbol = {symbol:String} AND computed_at <= ${msParam('asOf')}${bounded ? ` AND computed_at > ${msParam('from')}` : ''}
ORDER BY computed_at DESC LIMIT 1`;

/** The newest stored chain at or before `asOfMs`, or null when none is stored. */
export async function chainInstantAtOrBefore(store: Store, symbol: MarketSymbol, asOfMs: number): Promise<ChainInstant | null> {
  const asOf = Math.floor(asOfMs);
  for (const tier of CHAIN_TIERS) {
    const r = await store.query<{ t: number }>(atOrBefore(tier.table, true), {
      symbol,
      asOf,
      from: asOf - (WINDOW_MS[tier.table] ?? tier.stepMs * 4),
    });
    if (r[0] !== undefined) return { t: r[0].t, table: tier.table };
  }
  const coarsest = CHAIN_TIERS[CHAIN_TIERS.length - 1] as (typeof CHAIN_TIERS)[number];
  const r = await store.query<{ t: number }>(atOrBefore(coarsest.table, false), { symbol, asOf });
  return r[0] === undefined ? null : { t: r[0].t, table: coarsest.table };
}

const NUMBER_COLUMNS = [
  'spot',
  'perp_price',
  'strike',
  't_years',
  'forward',
  'bid_price_usd',
  'ask_price_usd',
  'bid_size',
  'ask_size',
  'mark_price_usd',
  'last_price_usd',
  'mark_iv',
  'bid_iv',
  'ask_iv',
  'delta',
  'gamma',
  'vega',
  'theta',
  'open_interest',
  'volume_24h',
  'dealer_inventory',
] as const;

// Read column-wise (RowBinary: no JSON formatting or parsing). Times as Int64 epoch ms (exact below 2^53), enums as
// strings; the time aliases differ from the column names (an alias equal to a column name would replace it in WHERE).
const ROW_COLUMNS = `${NUMBER_COLUMNS.join(', ')}, venue, instrument, toString(option_type) AS option_type,
  toString(delta_source) AS delta_source, toString(gamma_source) AS gamma_source, toString(vega_source) AS vega_source,
  toString(theta_source) AS theta_source, toUnixTimestamp64Milli(expiry) AS expiry_ms, toUnixTimestamp64Milli(ticker_ts) AS ticker_ts_ms,
  toUnixTimestamp64Milli(computed_at) AS computed_at_ms`;

const rowsQuery = (table: string): string => `SELECT ${ROW_COLUMNS}
FROM ${table}
WHERE symbol = {symbol:String} AND computed_at = ${msParam('t')}`;

/** Every row stored in (from, asOf] of one tier (rowsOf keeps the newest tick's). */
const rowsInQuery = (table: string): string => `SELECT ${ROW_COLUMNS}
FROM ${table}
WHERE symbol = {symbol:String} AND computed_at > ${msParam('from')} AND computed_at <= ${msParam('asOf')}`;

/** The rows of the newest chain in (from, asOf] of one tier, in one statement (instant lookup as a subquery). */
const rowsAtOrBeforeQuery = (table: string): string => `SELECT ${ROW_COLUMNS}
FROM ${table}
WHERE symbol = {symbol:String} AND computed_at = (
  SELECT computed_at FROM ${table}
  WHERE symbol = {symbol:String} AND computed_at <= ${msParam('asOf')} AND computed_at > ${msParam('from')}
  ORDER BY computed_at DESC LIMIT 1)`;

/** Every row of one stored chain, in (venue, instrument) order. */
export async function chainRowsAt(store: Store, symbol: MarketSymbol, at: ChainInstant): Promise<OptionChainRow[]> {
  if (!CHAIN_TIERS.some((x) => x.table === at.table)) throw new Error(`not a chain table: ${at.table}`);
  return rowsOf(symbol, await store.queryColumns(rowsQuery(at.table), { symbol, t: at.t }));
}

/**
 * The newest stored chain at or before `asOfMs` with its rows: per tier whose retention covers the instant, the rows
 * of the last step before it (no subquery; exact, since nothing newer than the newest row found can be at or
 * before the instant), else one statement over the tier's lookup window; then the instant lookup without a window
 * (chainInstantAtOrBefore) when none of the windows holds a chain.
 */
export async function chainAtOrBefore(
  store: Store,
  symbol: MarketSymbol,
  asOfMs: number,
  nowMs: number = Date.now(),
): Promise<{ readonly at: ChainInstant; readonly rows: OptionChainRow[] } | null> {
  const asOf = Math.floor(asOfMs);
  // A tier whose retention ended before the instant cannot hold it: skipped (one statement less for older instants).
  for (const tier of CHAIN_TIERS) {
    if (asOf < nowMs - tier.keepMs) continue;
    // First the rows stored in (asOf − step, asOf]: one key-range read, no instant subquery. Ticks come at most a
    // step apart (every tick in the finest tier, step multiples in the coarser ones), so when the processor ran
    // the newest tick at or before the instant is in there (several ticks when it runs faster: the newest kept).
    const near = rowsOf(symbol, await store.queryColumns(rowsInQuery(tier.table), { symbol, from: asOf - tier.stepMs, asOf }));
    if (near.length > 0) return { at: { t: (near[0] as OptionChainRow).computed_at, table: tier.table }, rows: near };
    const r = await store.queryColumns(rowsAtOrBeforeQuery(tier.table), {
      symbol,
      asOf,
      from: asOf - (WINDOW_MS[tier.table] ?? tier.stepMs * 4),
    });
    if (r.rows > 0) {
      const rows = rowsOf(symbol, r);
      return { at: { t: (rows[0] as OptionChainRow).computed_at, table: tier.table }, rows };
    }
  }
  const at = await chainInstantAtOrBefore(store, symbol, asOf);
  return at === null ? null : { at, rows: await chainRowsAt(store, symbol, at) };
}

function rowsOf(symbol: MarketSymbol, r: ColumnsResult): OptionChainRow[] {
  const cols = Object.fromEntries(r.names.map((n) => [n, r.columns[n] as ResultColumn]));
  const num = (name: string, i: number): number | null => cellAt(cols[name] as ResultColumn, i) as number | null;
  const str = (name: string, i: number): string => cellAt(cols[name] as ResultColumn, i) as string;
  // The newest tick's rows only; one row per (venue, instrument) (a crash duplicate is the same row); sorted here
  // rather than in the store.
  let newest = -Infinity;
  for (let i = 0; i < r.rows; i++) newest = Math.max(newest, num('computed_at_ms', i) as number);
  const seen = new Set<string>();
  const rows: OptionChainRow[] = [];
  for (let i = 0; i < r.rows; i++) {
    if (num('computed_at_ms', i) !== newest) continue;
    const key = `${str('venue', i)}|${str('instrument', i)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    rows.push({
      symbol,
      computed_at: num('computed_at_ms', i) as number,
      spot: num('spot', i) as number,
      perp_price: num('perp_price', i),
      venue: str('venue', i),
      instrument: str('instrument', i),
      expiry: num('expiry_ms', i) as number,
      strike: num('strike', i) as number,
      option_type: str('option_type', i) as OptionChainRow['option_type'],
      t_years: num('t_years', i) as number,
      forward: num('forward', i) as number,
      bid_price_usd: num('bid_price_usd', i),
      ask_price_usd: num('ask_price_usd', i),
      bid_size: num('bid_size', i),
      ask_size: num('ask_size', i),
      mark_price_usd: num('mark_price_usd', i),
      last_price_usd: num('last_price_usd', i),
      mark_iv: num('mark_iv', i),
      bid_iv: num('bid_iv', i),
      ask_iv: num('ask_iv', i),
      delta: num('delta', i),
      gamma: num('gamma', i),
      vega: num('vega', i),
      theta: num('theta', i),
      delta_source: str('delta_source', i) as OptionChainRow['delta_source'],
      gamma_source: str('gamma_source', i) as OptionChainRow['gamma_source'],
      vega_source: str('vega_source', i) as OptionChainRow['vega_source'],
      theta_source: str('theta_source', i) as OptionChainRow['theta_source'],
      open_interest: num('open_interest', i) as number,
      volume_24h: num('volume_24h', i),
      dealer_inventory: num('dealer_inventory', i),
      ticker_ts: num('ticker_ts_ms', i) as number,
    });
  }
  return rows.sort((a, b) =>
    a.venue < b.venue ? -1 : a.venue > b.venue ? 1 : a.instrument < b.instrument ? -1 : a.instrument > b.instrument ? 1 : 0,
  );
}

const TRADES_SQL = `SELECT venue, toUnixTimestamp64Milli(expiry) AS expiry_ms, strike, option_type,
  sum(trades) AS trade_count, sum(premium_usd) AS notional_volume
FROM option_tape_1m
WHERE symbol = {symbol:String} AND bucket >= toDateTime({from:Int64}, 'UTC') AND bucket < toDateTime({to:Int64}, 'UTC')
GROUP BY venue, expiry, strike, option_type`;

/**
 * Per venue contract, the trades and premium paid (USD) in the trade window of a chain instant
 * (processors/analytics/chain-trades.ts: the 24 h before its UTC minute), from the option tape's minute table.
 */
export async function chainTradesAt(store: Store, symbol: MarketSymbol, t: number): Promise<ContractTrades[]> {
  const w = chainTradeWindow(t);
  const rows = await store.query<{
    venue: string;
    expiry_ms: string | number;
    strike: number;
    option_type: string;
    trade_count: string | number;
    notional_volume: number;
  }>(TRADES_SQL, { symbol, from: w.fromMs / 1000, to: w.toMs / 1000 });
  return rows.map((r) => ({
    venue: r.venue,
    expiry: Number(r.expiry_ms),
    strike: r.strike,
    option_type: r.option_type as OptionType,
    trade_count: Number(r.trade_count),
    notional_volume: r.notional_volume,
  }));
}

/** The rows of a stored chain as the routes and the WS channel serve them: with their trade figures. */
export async function servedChainRowsAt(store: Store, symbol: MarketSymbol, at: ChainInstant): Promise<OptionChainRow[]> {
  const [rows, trades] = await Promise.all([chainRowsAt(store, symbol, at), chainTradesAt(store, symbol, at.t)]);
  return withTrades(rows, trades);
}

/** Rows already read (an as_of lookup reads the instant and its rows in one statement) with their trade figures. */
export async function withTradesAt(
  store: Store,
  symbol: MarketSymbol,
  t: number,
  rows: readonly OptionChainRow[],
): Promise<OptionChainRow[]> {
  return withTrades(rows, await chainTradesAt(store, symbol, t));
}
