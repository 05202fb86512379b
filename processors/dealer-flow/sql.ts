/**
 * The dealer-flow SQL. Every trade contributes n = round(size · 1e9) (Int64, 1e-9 coin), so sums are exact
 * integers and the same whatever the order or the split into checkpoint + trades: the incremental read and the
 * full scan agree bit for bit. Dealer inventory = −Σ taker-signed n (buy +, anything else −). Trades are
 * deduplicated by FINAL (a redelivered trade has the same sort key (symbol, ts, venue, id) and collapses).
 */
import { msColumn, msParam } from '../../clickhouse/epoch-ms.ts';

/** Dealer-signed size of one trade row in 1e-9 coin. */
const DEALER_NANO = `if(side = 'buy', -1, 1) * toInt64(round(size * 1000000000))`;

/** Trades of one symbol with ts in (from, to] on contracts still open at `open`, per contract. */
export const TRADES_SINCE_SQL = `SELECT venue, instrument, ${msColumn('expiry', 'expiry_ms')}, sum(${DEALER_NANO}) AS nano, count() AS trade_count
FROM option_trades FINAL
WHERE symbol = {symbol:String} AND ts > ${msParam('from')} AND ts <= ${msParam('to')} AND expiry > ${msParam('open')} AND isFinite(size)
GROUP BY venue, instrument, expiry`;

/** Full scan (the reference and the first checkpoint): every trade with ts ≤ asOf on contracts open at asOf. */
export const FULL_SCAN_SQL = `SELECT venue, instrument, ${msColumn('expiry', 'expiry_ms')}, sum(${DEALER_NANO}) AS nano, count() AS trade_count
FROM option_trades FINAL
WHERE symbol = {symbol:String} AND ts <= ${msParam('asOf')} AND expiry > ${msParam('asOf')} AND isFinite(size)
GROUP BY venue, instrument, expiry`;

/** The latest complete checkpoint at or before `asOf`, and the latest full one (LIMIT 1 BY full). */
export const CHECKPOINTS_SQL = `SELECT ${msColumn('checkpoint_at', 'at')}, full
FROM dealer_inventory_ticks
WHERE symbol = {symbol:String} AND checkpoint_at <= ${msParam('asOf')}
ORDER BY checkpoint_at DESC
LIMIT 1 BY full`;

/** State at checkpoint `last` (rows in [base, last], the newest per contract), contracts open at `asOf`. */
const CHECKPOINT_ROWS = `SELECT venue, instrument, expiry, argMax(inventory_nano, checkpoint_at) AS nano, argMax(trades, checkpoint_at) AS trade_count
FROM dealer_inventory
WHERE symbol = {symbol:String} AND checkpoint_at >= ${msParam('base')} AND checkpoint_at <= ${msParam('last')} AND expiry > ${msParam('asOf')}
GROUP BY venue, instrument, expiry`;

const TRADES_AFTER = `SELECT venue, instrument, expiry, sum(${DEALER_NANO}) AS nano, count() AS trade_count
FROM option_trades FINAL
WHERE symbol = {symbol:String} AND ts > ${msParam('last')} AND ts <= ${msParam('asOf')} AND expiry > ${msParam('asOf')} AND isFinite(size)
GROUP BY venue, instrument, expiry`;

/** Checkpoint `last` plus the trades in (last, asOf]: the inventory as of `asOf`. */
export const AS_OF_SQL = `SELECT venue, instrument, ${msColumn('expiry', 'expiry_ms')}, sum(nano) AS nano, sum(trade_count) AS trade_count
FROM (${CHECKPOINT_ROWS} UNION ALL ${TRADES_AFTER})
GROUP BY venue, instrument, expiry`;

const EPOCH = `toDateTime64(0, 3, 'UTC')`;
const NEWEST_TICK = (cond: string): string =>
  `(SELECT checkpoint_at FROM dealer_inventory_ticks WHERE symbol = {symbol:String}${cond} AND checkpoint_at <= ${msParam('asOf')} ORDER BY checkpoint_at DESC LIMIT 1)`;

/**
 * AS_OF_SQL with the checkpoint references found in the same statement (one round trip): `last_at` = the latest
 * complete checkpoint at or before asOf, `base_at` = the latest full one. Without a full checkpoint both become the
 * epoch, so no checkpoint row is read and every trade up to asOf is: the full scan, as entriesAsOf's fallback.
 */
export const AS_OF_ONE_SQL = `WITH ${NEWEST_TICK('')} AS last_at, ${NEWEST_TICK(' AND full')} AS base_at,
  ifNull(base_at, ${EPOCH}) AS base_eff, if(base_at IS NULL, ${EPOCH}, assumeNotNull(last_at)) AS last_eff
SELECT venue, instrument, ${msColumn('expiry', 'expiry_ms')}, sum(nano) AS nano, sum(trade_count) AS trade_count
FROM (
  SELECT venue, instrument, expiry, argMax(inventory_nano, checkpoint_at) AS nano, argMax(trades, checkpoint_at) AS trade_count
  FROM dealer_inventory
  WHERE symbol = {symbol:String} AND checkpoint_at >= base_eff AND checkpoint_at <= last_eff AND expiry > ${msParam('asOf')}
  GROUP BY venue, instrument, expiry
  UNION ALL
  SELECT venue, instrument, expiry, sum(${DEALER_NANO}) AS nano, count() AS trade_count
  FROM option_trades FINAL
  WHERE symbol = {symbol:String} AND ts > last_eff AND ts <= ${msParam('asOf')} AND expiry > ${msParam('asOf')} AND isFinite(size)
  GROUP BY venue, instrument, expiry
)
GROUP BY venue, instrument, expiry`;
