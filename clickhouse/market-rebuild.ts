import type { Store } from './store.ts';
import { VENUES } from '#schemas/events.ts';
import { rederiveRollups } from './market-rollups.ts';

/**
 * Recomputes the 1-minute market states and the option tape minutes (option_tape_1m) of [fromMs, toMs) from the
 * raw tables read with FINAL (each event once): deletes the range from the *_1m tables, then INSERT … SELECT with the materialized
 * views' own
 * aggregation. Repairs sums after a redelivery in a different batch, and fills the states for raw rows
 * stored before migration 020. Whole minutes only; run it on closed minutes (not while the raw writer
 * is still writing into the range). Then the hourly and daily states (migration 022) of every hour and day
 * touching the range are re-derived from the 1-minute states (market-rollups.ts): their views only ever add.
 */
const TRADES = (table: string, market: string) => `INSERT INTO market_trades_1m
SELECT symbol, '${market}' AS market, toStartOfMinute(toDateTime(ts, 'UTC')) AS bucket,
  argMinState(price, ${TRADE_KEY}), argMaxState(price, ${TRADE_KEY}),
  max(price), min(price), sum(size), sum(price * size), sumIf(size, side = 'buy'), sumIf(price * size, side = 'buy'),
  sumIf(size, side = 'sell'), sumIf(price * size, side = 'sell'), toUInt64(count()), max(ts), groupUniqArray(toString(venue)),
  ${VENUE_MASK}
FROM ${table} FINAL WHERE ${RAW_RANGE} GROUP BY symbol, bucket
SETTINGS insert_deduplicate = 0`;

/** ts_ms << 64 | x as UInt128, the ordering key packing of migration 020 (same expressions as its MVs). */
const PACKED = (x: string): string => `bitOr(bitShiftLeft(toUInt128(toUnixTimestamp64Milli(ts)), 64), toUInt128(${x}))`;
const TRADE_KEY = PACKED('cityHash64(venue, id)');
/** A perp-stats value with its ts (NULL stays NULL): max = value of the newest message, min = of the oldest. */
const STAT = (col: string): string => `if(${col} IS NULL, NULL, ${PACKED(`reinterpretAsUInt64(assumeNotNull(${col}))`)})`;

/** The views' venue bitmask (migration 021): bit i = VENUES[i]. */
const VENUE_LIST = `[${VENUES.map((v) => `'${v}'`).join(', ')}]`;
const VENUE_MASK = `groupBitOr(if(indexOf(${VENUE_LIST}, toString(venue)) = 0, toUInt16(0), bitShiftLeft(toUInt16(1), indexOf(${VENUE_LIST}, toString(venue)) - 1)))`;

const RAW_RANGE = "ts >= fromUnixTimestamp64Milli({from:Int64}, 'UTC') AND ts < fromUnixTimestamp64Milli({to:Int64}, 'UTC')";
const STATE_RANGE = "bucket >= toDateTime({from_s:UInt32}, 'UTC') AND bucket < toDateTime({to_s:UInt32}, 'UTC')";

const STATEMENTS: readonly { readonly target: string; readonly insert: string }[] = [
  { target: 'market_trades_1m', insert: TRADES('perp_trades', 'perp') },
  { target: '', insert: TRADES('spot_trades', 'spot') },
  {
    target: 'market_perp_stats_1m',
    insert: `INSERT INTO market_perp_stats_1m
SELECT symbol, venue, toStartOfMinute(toDateTime(ts, 'UTC')) AS bucket, max(${STAT('open_interest')}), max(${STAT('open_interest_usd')}),
  min(${STAT('funding_rate')}), max(${STAT('funding_rate')}), sum(ifNull(funding_rate, 0)), toUInt64(count(funding_rate)), max(ts)
FROM perp_stats FINAL WHERE ${RAW_RANGE} GROUP BY symbol, venue, bucket
SETTINGS insert_deduplicate = 0`,
  },
  {
    target: 'market_liquidations_1m',
    insert: `INSERT INTO market_liquidations_1m
SELECT symbol, toStartOfMinute(toDateTime(ts, 'UTC')) AS bucket, sumIf(size, side = 'long'), sumIf(price * size, side = 'long'),
  toUInt64(countIf(side = 'long')), sumIf(size, side = 'short'), sumIf(price * size, side = 'short'), toUInt64(countIf(side = 'short')),
  max(ts), groupUniqArray(toString(venue)), ${VENUE_MASK}
FROM liquidations FINAL WHERE ${RAW_RANGE} GROUP BY symbol, bucket
SETTINGS insert_deduplicate = 0`,
  },
  {
    // option_tape_1m (migration 041): the view's aggregation over option_trades FINAL.
    target: 'option_tape_1m',
    insert: `INSERT INTO option_tape_1m
SELECT symbol, toStartOfMinute(toDateTime(ts, 'UTC')) AS bucket, venue, expiry, strike, option_type, side,
  toUInt64(count()), sum(q), sum(p), sum(q * ifNull(ref, 0)), toUInt64(countIf(ref IS NULL)),
  toUInt64(countIf(is_block)), sumIf(q, is_block), sumIf(p, is_block)
FROM (
  SELECT symbol, ts, venue, expiry, strike, option_type, side, size AS q, premium_usd AS p,
         coalesce(index_price, underlying_price) AS ref, block AS is_block
  FROM option_trades FINAL
  WHERE ${RAW_RANGE} AND isFinite(size) AND isFinite(premium_usd)
)
GROUP BY symbol, bucket, venue, expiry, strike, option_type, side
SETTINGS insert_deduplicate = 0`,
  },
];

export async function rebuildMarketMinutes(store: Store, fromMs: number, toMs: number): Promise<void> {
  const from = Math.floor(fromMs / 60_000) * 60_000;
  const to = Math.ceil(toMs / 60_000) * 60_000;
  for (const s of STATEMENTS) {
    if (s.target !== '') {
      // Table names are constants of this file (not parameters).
      await store.command(`DELETE FROM ${s.target} WHERE ${STATE_RANGE}`, { from_s: from / 1000, to_s: to / 1000 });
    }
    await store.command(s.insert, { from, to });
  }
  await rederiveRollups(store, from, to);
}
