/**
 * The dealer-flow SQL. Every trade contributes n = round(size · 1e9) (Int64, 1e-9 coin), so sums are exact
 * integers and the same whatever the order or the split into checkpoint + trades: the incremental read and the
 * full scan agree bit for bit. Dealer inventory = −Σ taker-signed n (buy +, anything else −). Trades are
 * deduplicated by FINAL (a redelivered trade has the same sort key (symbol, ts, venue, id) and collapses).
 */
import { msColumn, msParam } from '#clickhouse/epoch-ms.ts';

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

/**
 * The latest complete checkpoint in (since, asOf], and the latest full one (LIMIT 1 BY full). The reader bounds
 * `since` (a primary-key range: cost flat as the markers accumulate, ~1 M a year per symbol) and widens it to the
 * epoch only when no full checkpoint is in that range.
 */
export const CHECKPOINTS_SQL = `SELECT ${msColumn('checkpoint_at', 'at')}, full
FROM dealer_inventory_ticks
WHERE symbol = {symbol:String} AND checkpoint_at > ${msParam('since')} AND checkpoint_at <= ${msParam('asOf')}
ORDER BY checkpoint_at DESC
LIMIT 1 BY full`;

/**
 * Every row of the full checkpoint at `base` (the whole book then; cached by the reader: immutable once marked).
 * FINAL (here and in CHANGES_SQL): a process killed between a checkpoint's rows and its marker leaves those rows
 * behind; its successor rewrites that checkpoint as a full one (different rows, so a different dedup token) and marks
 * it. Until a merge collapses the two writes (same sort key, the later one kept), a read without FINAL summed both.
 * The rewrite always holds every contract of the orphan write, so FINAL leaves exactly the marked write.
 */
export const FULL_CHECKPOINT_SQL = `SELECT venue, instrument, ${msColumn('expiry', 'expiry_ms')}, toString(inventory_nano) AS nano, trades AS trade_count
FROM dealer_inventory FINAL
WHERE symbol = {symbol:String} AND checkpoint_at = ${msParam('base')}`;

/**
 * What changed after the full checkpoint `base`, for contracts open at `asOf`: kind 'c', the newest incremental
 * checkpoint row per contract in (base, last] (an absolute inventory, replacing the full checkpoint's); kind 't',
 * the sums of the trades in (last, asOf] (added).
 */
export const CHANGES_SQL = `SELECT 'c' AS kind, venue, instrument, ${msColumn('expiry', 'expiry_ms')}, toString(argMax(inventory_nano, checkpoint_at)) AS nano,
  argMax(trades, checkpoint_at) AS trade_count
FROM dealer_inventory FINAL
WHERE symbol = {symbol:String} AND checkpoint_at > ${msParam('base')} AND checkpoint_at <= ${msParam('last')} AND expiry > ${msParam('asOf')}
GROUP BY venue, instrument, expiry
UNION ALL
SELECT 't' AS kind, venue, instrument, ${msColumn('expiry', 'expiry_ms')}, toString(sum(${DEALER_NANO})) AS nano, count() AS trade_count
FROM option_trades FINAL
WHERE symbol = {symbol:String} AND ts > ${msParam('last')} AND ts <= ${msParam('asOf')} AND expiry > ${msParam('asOf')} AND isFinite(size)
GROUP BY venue, instrument, expiry`;
