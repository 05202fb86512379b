/**
 * The API's reads of the consolidated chain (option_chain_snapshots*, migration 059). The instant of a request is
 * the newest stored chain at or before the bound (never after), looked up tier by tier from the finest (30 s,
 * 3 days) to the coarsest (1 h, 366 days): each lookup reads backwards on the primary key (symbol, computed_at)
 * within a window, then one unbounded lookup on the hourly tier. The rows of an instant are one key range; a crash
 * duplicate is removed with LIMIT 1 BY (venue, instrument).
 */
import { msColumn, msParam } from '../../clickhouse/epoch-ms.ts';
import type { Store } from '../../clickhouse/store.ts';
import { CHAIN_TIERS } from '../../processors/snapshots/option-chain-record.ts';
import type { OptionChainRow } from '../../processors/snapshots/option-chain.ts';
import type { MarketSymbol } from '../../schemas/events.ts';

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
    const r = await store.query<{ t: number }>(atOrBefore(tier.table, true), { symbol, asOf, from: asOf - (WINDOW_MS[tier.table] ?? tier.stepMs * 4) });
    if (r[0] !== undefined) return { t: r[0].t, table: tier.table };
  }
  const coarsest = CHAIN_TIERS[CHAIN_TIERS.length - 1] as (typeof CHAIN_TIERS)[number];
  const r = await store.query<{ t: number }>(atOrBefore(coarsest.table, false), { symbol, asOf });
  return r[0] === undefined ? null : { t: r[0].t, table: coarsest.table };
}

const COLUMNS = `symbol, ${msColumn('computed_at', 'computed_at_ms')}, spot, perp_price, venue, instrument, ${msColumn('expiry', 'expiry_ms')}, strike,
  option_type, t_years, forward, bid_price_usd, ask_price_usd, bid_size, ask_size, mark_price_usd, last_price_usd, mark_iv, bid_iv, ask_iv,
  delta, gamma, vega, theta, toString(delta_source) AS delta_source, toString(gamma_source) AS gamma_source,
  toString(vega_source) AS vega_source, toString(theta_source) AS theta_source, open_interest, volume_24h, dealer_inventory,
  ${msColumn('ticker_ts', 'ticker_ts_ms')}`;

const rowsQuery = (table: string): string => `SELECT ${COLUMNS} FROM ${table}
WHERE symbol = {symbol:String} AND computed_at = ${msParam('t')}
ORDER BY venue, instrument
LIMIT 1 BY venue, instrument`;

// Times are read under *_ms aliases: an alias equal to a column name would replace the column in WHERE / ORDER BY.
type StoredChainRow = Omit<OptionChainRow, 'computed_at' | 'expiry' | 'ticker_ts'> & {
  readonly computed_at_ms: number;
  readonly expiry_ms: number;
  readonly ticker_ts_ms: number;
};

/** Every row of one stored chain, in (venue, instrument) order. */
export async function chainRowsAt(store: Store, symbol: MarketSymbol, at: ChainInstant): Promise<OptionChainRow[]> {
  if (!CHAIN_TIERS.some((x) => x.table === at.table)) throw new Error(`not a chain table: ${at.table}`);
  const rows = await store.query<StoredChainRow>(rowsQuery(at.table), { symbol, t: at.t });
  return rows.map(({ computed_at_ms, expiry_ms, ticker_ts_ms, ...r }) => ({ ...r, computed_at: computed_at_ms, expiry: expiry_ms, ticker_ts: ticker_ts_ms }));
}
