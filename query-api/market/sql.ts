import { TIERS, type Tier } from './tiers.ts';

/**
 * Roll-ups of the market states (1-minute tables of clickhouse/migrations/020_market_series.sql, hourly and daily
 * tables of 022_market_rollups.sql) to the requested interval at query time, one statement per state table (a
 * series sharing a table shares its scan), each built for every tier (tiers.ts picks the table). Every
 * statement takes {symbol:String}, {m:UInt32} (interval minutes), {from:UInt32} and {to:UInt32} (Unix seconds,
 * [from, to), on the primary key) and returns one row per non-empty bucket, ordered by `t` (bucket start, Unix
 * seconds), with `last_ms` (newest event, ms). Read through Store.queryColumns (RowBinary). The venues of a
 * trades or liquidations bucket are `venue_mask` (migration 021: bit i = VENUES[i] of schemas/events.ts), ORed
 * in the same pass: no second scan for them.
 */

const BUCKET = "toUInt32(toUnixTimestamp(toStartOfInterval(bucket, toIntervalMinute({m:UInt32}), 'UTC')))";
const RANGE = "symbol = {symbol:String} AND bucket >= toDateTime({from:UInt32}, 'UTC') AND bucket < toDateTime({to:UInt32}, 'UTC')";
const LAST_MS = 'toUnixTimestamp64Milli(max(last_ts)) AS last_ms';
const VENUE_MASK = 'groupBitOr(venue_mask) AS venue_mask';

/**
 * One UInt64 grouping key per (bucket, venue): bucket start (Unix seconds) in the high 32 bits, a hash of the venue
 * name in the low 32 (cityHash64 mod the largest 32-bit prime, evaluated once per LowCardinality dictionary entry).
 * Hashing one integer is ~15 % faster on the year-long perp-stats roll-up than the (bucket, LowCardinality venue)
 * pair; the venues of schemas/events.ts have distinct hashes (query-api/market/venue-mask.test.ts checks it).
 */
export const VENUE_HASH = 'cityHash64(venue) % 4294967291';
export const VENUE_BUCKET_KEY = `bitOr(bitShiftLeft(toUInt64(${BUCKET}), 32), ${VENUE_HASH})`;

/** Float64 carried in the low 64 bits of a packed (ts_ms << 64 | bits) perp-stats value; NULL stays NULL. */
const unpack = (x: string): string => `reinterpretAsFloat64(toUInt64(${x}))`;

/** OHLCV with the taker buy/sell split; also takes {market:String} (`perp` / `spot`). */
const candles = (tier: Tier): string => `SELECT ${BUCKET} AS t,
  argMinMerge(open) AS open, max(high) AS high, min(low) AS low, argMaxMerge(close) AS close,
  sum(volume) AS volume, sum(volume_usd) AS volume_usd,
  sum(buy_volume) AS buy_volume, sum(sell_volume) AS sell_volume,
  sum(buy_volume_usd) AS buy_volume_usd, sum(sell_volume_usd) AS sell_volume_usd,
  sum(trades) AS trades, ${LAST_MS}, ${VENUE_MASK}
FROM market_trades_${tier}
WHERE ${RANGE} AND market = {market:String}
GROUP BY t ORDER BY t`;

/** Taker buy and sell volume in coins per bucket (CVD without candles: no open/close states read); takes {market:String}. */
const flow = (tier: Tier): string => `SELECT ${BUCKET} AS t, sum(buy_volume) AS buy_volume, sum(sell_volume) AS sell_volume, ${LAST_MS}, ${VENUE_MASK}
FROM market_trades_${tier}
WHERE ${RANGE} AND market = {market:String}
GROUP BY t ORDER BY t`;

/**
 * Open interest and funding in one pass over market_perp_stats_<tier>. Per venue and bucket: the last open interest
 * (coins, USD), the first/last funding rate and the mean of its samples; then per bucket
 *   - open interest: the sum over the venues that published one in the bucket (`oi_venues` of them; `oi_usd`
 *     sums their last USD values), `oi_last_ms`, `oi_sources`;
 *   - funding: the plain cross-venue mean of each rate over the venues with a rate in the bucket
 *     (`funding_venues`), `funding_last_ms`, `funding_sources`.
 * A bucket where no venue published open interest (funding) has `oi_venues` (`funding_venues`) = 0: that series
 * has no data there. `oi_sources` / `funding_sources`: the bucket's venues of each, comma-separated (cheap here:
 * at most a few venues per bucket, counted from the inner result).
 */
const perpStats = (tier: Tier): string => `SELECT t,
  countIf(v_oi IS NOT NULL) AS oi_venues, sumIf(v_oi, v_oi IS NOT NULL) AS oi, sumIf(v_oi_usd, v_oi IS NOT NULL) AS oi_usd,
  maxIf(v_last, v_oi IS NOT NULL) AS oi_last_ms, arrayStringConcat(groupArrayIf(toString(v_venue), v_oi IS NOT NULL), ',') AS oi_sources,
  count(v_fc) AS funding_venues, avg(v_fo) AS rate_open, avg(v_fc) AS rate_close, avg(v_fm) AS rate_mean,
  maxIf(v_last, v_fc IS NOT NULL) AS funding_last_ms, arrayStringConcat(groupArrayIf(toString(v_venue), v_fc IS NOT NULL), ',') AS funding_sources
FROM (
  SELECT toUInt32(bitShiftRight(k, 32)) AS t, any(venue) AS v_venue,
    ${unpack('max(oi_last)')} AS v_oi, ${unpack('max(oi_usd_last)')} AS v_oi_usd,
    ${unpack('min(funding_open)')} AS v_fo, ${unpack('max(funding_close)')} AS v_fc,
    if(sum(funding_count) = 0, NULL, sum(funding_sum) / sum(funding_count)) AS v_fm,
    toUnixTimestamp64Milli(max(last_ts)) AS v_last
  FROM market_perp_stats_${tier}
  WHERE ${RANGE}
  GROUP BY ${VENUE_BUCKET_KEY} AS k
)
GROUP BY t ORDER BY t`;

/** Long and short liquidations (liquidated position side), coins, USD and counts. */
const liquidations = (tier: Tier): string => `SELECT ${BUCKET} AS t,
  sum(long_size) AS long_size, sum(short_size) AS short_size, sum(long_usd) AS long_usd, sum(short_usd) AS short_usd,
  sum(long_count) AS long_count, sum(short_count) AS short_count, ${LAST_MS}, ${VENUE_MASK}
FROM market_liquidations_${tier}
WHERE ${RANGE}
GROUP BY t ORDER BY t`;

/** One statement per tier. */
type PerTier = Readonly<Record<Tier, string>>;
const perTier = (build: (tier: Tier) => string): PerTier => Object.fromEntries(TIERS.map((t) => [t, build(t)])) as Record<Tier, string>;

export const CANDLES_SQL: PerTier = perTier(candles);
export const FLOW_SQL: PerTier = perTier(flow);
export const PERP_STATS_SQL: PerTier = perTier(perpStats);
export const LIQUIDATIONS_SQL: PerTier = perTier(liquidations);
