import { VENUES } from '#schemas/events.ts';
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
 * One UInt64 grouping key per (bucket, venue): bucket start (Unix seconds) in the high 32 bits, the venue's id in the
 * low 32, evaluated once per LowCardinality dictionary entry: 1 + its index in VENUES (schemas/events.ts) for a known
 * venue, so the id also gives its bit in the venue masks (migration 021), else 16 + cityHash64 mod a 32-bit bound
 * (distinct from the known ids). Hashing one integer is ~15 % faster on the year-long perp-stats roll-up than the
 * (bucket, LowCardinality venue) pair, and the bucket's sources come out as a bitmask (groupBitOr) instead of
 * concatenated venue names (~60 % of that statement's engine time on a year at 1h with ten venues).
 */
const VENUE_LIST = `[${VENUES.map((v) => `'${v}'`).join(', ')}]`;
export const VENUE_HASH = 'cityHash64(venue) % 4294967279';
export const VENUE_ID = `if(indexOf(${VENUE_LIST}, venue) = 0, 16 + ${VENUE_HASH}, indexOf(${VENUE_LIST}, venue))`;
export const VENUE_BUCKET_KEY = `bitOr(bitShiftLeft(toUInt64(${BUCKET}), 32), ${VENUE_ID})`;

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
const flow = (
  tier: Tier,
): string => `SELECT ${BUCKET} AS t, sum(buy_volume) AS buy_volume, sum(sell_volume) AS sell_volume, ${LAST_MS}, ${VENUE_MASK}
FROM market_trades_${tier}
WHERE ${RANGE} AND market = {market:String}
GROUP BY t ORDER BY t`;

/**
 * Open interest and funding in one pass over market_perp_stats_<tier>. Per venue and bucket: the last open interest
 * (coins, USD), the first/last funding rate and the mean of its samples; then per bucket
 *   - open interest: the sum over the venues that published one in the bucket (`oi_venues` of them; `oi_usd`
 *     sums their last USD values), `oi_last_ms`, `oi_mask`;
 *   - funding: the plain cross-venue mean of each rate over the venues with a rate in the bucket
 *     (`funding_venues`), `funding_last_ms`, `funding_mask`.
 * A bucket where no venue published open interest (funding) has `oi_venues` (`funding_venues`) = 0: that series
 * has no data there. `oi_mask` / `funding_mask`: the bucket's venues of each as a venue bitmask (bit i = VENUES[i];
 * a venue outside VENUES counts in the figures but not in the mask, as in the trades' masks).
 */
const perpStats = (tier: Tier): string => `SELECT t,
  countIf(v_oi IS NOT NULL) AS oi_venues, sumIf(v_oi, v_oi IS NOT NULL) AS oi, sumIf(v_oi_usd, v_oi IS NOT NULL) AS oi_usd,
  maxIf(v_last, v_oi IS NOT NULL) AS oi_last_ms, groupBitOrIf(v_bit, v_oi IS NOT NULL) AS oi_mask,
  count(v_fc) AS funding_venues, avg(v_fo) AS rate_open, avg(v_fc) AS rate_close, avg(v_fm) AS rate_mean,
  maxIf(v_last, v_fc IS NOT NULL) AS funding_last_ms, groupBitOrIf(v_bit, v_fc IS NOT NULL) AS funding_mask
FROM (
  SELECT toUInt32(bitShiftRight(k, 32)) AS t, bitAnd(k, 4294967295) AS v_id,
    if(v_id <= ${VENUES.length}, bitShiftLeft(toUInt16(1), toUInt8(v_id - 1)), toUInt16(0)) AS v_bit,
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
