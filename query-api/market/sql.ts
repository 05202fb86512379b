/**
 * Roll-ups of the 1-minute market states (clickhouse/migrations/020_market_series.sql) to the requested
 * interval at query time. Every statement takes {symbol:String}, {m:UInt32} (interval minutes), {from:UInt32}
 * and {to:UInt32} (Unix seconds, [from, to)) and returns one row per non-empty bucket with `t` (bucket start,
 * Unix seconds), `last_ms` (newest event, ms, as a string: Int64) and `venues`.
 */

const BUCKET = "toUInt32(toUnixTimestamp(toStartOfInterval(bucket, toIntervalMinute({m:UInt32}), 'UTC')))";
const RANGE = "symbol = {symbol:String} AND bucket >= toDateTime({from:UInt32}, 'UTC') AND bucket < toDateTime({to:UInt32}, 'UTC')";

/** OHLCV with the taker buy/sell split; also takes {market:String} (`perp` / `spot`). */
export const CANDLES_SQL = `SELECT ${BUCKET} AS t,
  argMinMerge(open) AS open, max(high) AS high, min(low) AS low, argMaxMerge(close) AS close,
  sum(volume) AS volume, sum(volume_usd) AS volume_usd,
  sum(buy_volume) AS buy_volume, sum(sell_volume) AS sell_volume,
  sum(buy_volume_usd) AS buy_volume_usd, sum(sell_volume_usd) AS sell_volume_usd,
  toString(sum(trades)) AS trades,
  toString(toUnixTimestamp64Milli(max(last_ts))) AS last_ms, groupUniqArrayArray(venues) AS venues
FROM market_trades_1m
WHERE ${RANGE} AND market = {market:String}
GROUP BY t ORDER BY t`;

/** Taker buy and sell volume in coins per bucket (CVD); takes {market:String}. */
export const FLOW_SQL = `SELECT ${BUCKET} AS t, sum(buy_volume) AS buy_volume, sum(sell_volume) AS sell_volume,
  toString(toUnixTimestamp64Milli(max(last_ts))) AS last_ms, groupUniqArrayArray(venues) AS venues
FROM market_trades_1m
WHERE ${RANGE} AND market = {market:String}
GROUP BY t ORDER BY t`;

/** Per venue the last open interest of the bucket, summed over the venues that published one in it. */
export const OPEN_INTEREST_SQL = `SELECT t, sum(venue_oi) AS oi, sum(venue_oi_usd) AS oi_usd, toUInt32(count()) AS venue_count,
  toString(max(lt)) AS last_ms, groupArray(toString(venue)) AS venues
FROM (
  SELECT ${BUCKET} AS t, venue, argMaxMerge(oi_last) AS venue_oi, argMaxMerge(oi_usd_last) AS venue_oi_usd,
    toUnixTimestamp64Milli(max(last_ts)) AS lt
  FROM market_perp_stats_1m
  WHERE ${RANGE}
  GROUP BY t, venue
)
WHERE venue_oi IS NOT NULL
GROUP BY t ORDER BY t`;

/** Per venue the first, last and mean funding rate of the bucket; the cross-venue mean of each. */
export const FUNDING_SQL = `SELECT t, avg(fo) AS rate_open, avg(fc) AS rate_close, avg(fm) AS rate_mean,
  toUInt32(count()) AS venue_count, toString(max(lt)) AS last_ms, groupArray(toString(venue)) AS venues
FROM (
  SELECT ${BUCKET} AS t, venue, argMinMerge(funding_open) AS fo, argMaxMerge(funding_close) AS fc,
    avgMerge(funding_mean) AS fm, toUnixTimestamp64Milli(max(last_ts)) AS lt
  FROM market_perp_stats_1m
  WHERE ${RANGE}
  GROUP BY t, venue
)
WHERE fc IS NOT NULL
GROUP BY t ORDER BY t`;

/** Long and short liquidations (liquidated position side), coins, USD and counts. */
export const LIQUIDATIONS_SQL = `SELECT ${BUCKET} AS t,
  sum(long_size) AS long_size, sum(short_size) AS short_size, sum(long_usd) AS long_usd, sum(short_usd) AS short_usd,
  toString(sum(long_count)) AS long_count, toString(sum(short_count)) AS short_count,
  toString(toUnixTimestamp64Milli(max(last_ts))) AS last_ms, groupUniqArrayArray(venues) AS venues
FROM market_liquidations_1m
WHERE ${RANGE}
GROUP BY t ORDER BY t`;
