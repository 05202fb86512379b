-- Market data series (/v2/market/*): 1-minute aggregate states filled by materialized views from the raw
-- tables; 5m … 1d are rolled up from these at query time. See clickhouse/README.md "Market series".
--   * bucket = toStartOfMinute(ts) as DateTime('UTC'): a trade at 00:01:00.000 belongs to the 00:01 bucket;
--   * an MV sees the rows of each INSERT block into its source table, deduplicated or not. Its target has
--     non_replicated_deduplication_window like the raw tables: the MV's block inherits a token derived from
--     the source block's (explicit insert_deduplication_token, else content hash), so a retried raw-writer
--     batch is dropped in the source AND in the target (verified on chDB 26.7 with default settings);
--   * first/last values use argMin/argMax on (ts, cityHash64(venue, id)): duplicates of one event cannot
--     change them and ties inside one millisecond resolve the same way on every merge; high/low/last_ts are
--     max/min: also duplicate-proof. The (ts, hash) key is packed into one UInt128 (ms << 64 | hash: same
--     order as the tuple), and the perp stats' "value at the newest/oldest ts" into a plain
--     SimpleAggregateFunction(max/min, Nullable(UInt128)) of (ms << 64 | the Float64's bits): fixed-size values
--     read and merged an order of magnitude faster than states keyed by a Tuple or holding a Nullable (the
--     query-time roll-up of a year reads ~3M rows). Sums and counts would count an event redelivered in a DIFFERENT batch
--     twice (bounded; see the README), `gex backfill --rebuild` recomputes minutes from the raw tables (FINAL).

-- Perpetual and spot trades, cross-venue, per (symbol, market, minute). USD = price × size.
CREATE TABLE IF NOT EXISTS market_trades_1m
(
    symbol          LowCardinality(String),
    market          LowCardinality(String),
    bucket          DateTime('UTC'),
    open            AggregateFunction(argMin, Float64, UInt128),
    close           AggregateFunction(argMax, Float64, UInt128),
    high            SimpleAggregateFunction(max, Float64),
    low             SimpleAggregateFunction(min, Float64),
    volume          SimpleAggregateFunction(sum, Float64),
    volume_usd      SimpleAggregateFunction(sum, Float64),
    buy_volume      SimpleAggregateFunction(sum, Float64),
    buy_volume_usd  SimpleAggregateFunction(sum, Float64),
    sell_volume     SimpleAggregateFunction(sum, Float64),
    sell_volume_usd SimpleAggregateFunction(sum, Float64),
    trades          SimpleAggregateFunction(sum, UInt64),
    last_ts         SimpleAggregateFunction(max, DateTime64(3, 'UTC')),
    venues          SimpleAggregateFunction(groupUniqArrayArray, Array(String))
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(bucket)
ORDER BY (symbol, market, bucket)
SETTINGS non_replicated_deduplication_window = 1000;

CREATE MATERIALIZED VIEW IF NOT EXISTS market_perp_trades_1m_mv TO market_trades_1m AS
SELECT
    symbol,
    'perp' AS market,
    toStartOfMinute(toDateTime(ts, 'UTC')) AS bucket,
    argMinState(price, bitOr(bitShiftLeft(toUInt128(toUnixTimestamp64Milli(ts)), 64), toUInt128(cityHash64(venue, id)))) AS open,
    argMaxState(price, bitOr(bitShiftLeft(toUInt128(toUnixTimestamp64Milli(ts)), 64), toUInt128(cityHash64(venue, id)))) AS close,
    max(price) AS high,
    min(price) AS low,
    sum(size) AS volume,
    sum(price * size) AS volume_usd,
    sumIf(size, side = 'buy') AS buy_volume,
    sumIf(price * size, side = 'buy') AS buy_volume_usd,
    sumIf(size, side = 'sell') AS sell_volume,
    sumIf(price * size, side = 'sell') AS sell_volume_usd,
    toUInt64(count()) AS trades,
    max(ts) AS last_ts,
    groupUniqArray(toString(venue)) AS venues
FROM perp_trades
GROUP BY symbol, bucket;

CREATE MATERIALIZED VIEW IF NOT EXISTS market_spot_trades_1m_mv TO market_trades_1m AS
SELECT
    symbol,
    'spot' AS market,
    toStartOfMinute(toDateTime(ts, 'UTC')) AS bucket,
    argMinState(price, bitOr(bitShiftLeft(toUInt128(toUnixTimestamp64Milli(ts)), 64), toUInt128(cityHash64(venue, id)))) AS open,
    argMaxState(price, bitOr(bitShiftLeft(toUInt128(toUnixTimestamp64Milli(ts)), 64), toUInt128(cityHash64(venue, id)))) AS close,
    max(price) AS high,
    min(price) AS low,
    sum(size) AS volume,
    sum(price * size) AS volume_usd,
    sumIf(size, side = 'buy') AS buy_volume,
    sumIf(price * size, side = 'buy') AS buy_volume_usd,
    sumIf(size, side = 'sell') AS sell_volume,
    sumIf(price * size, side = 'sell') AS sell_volume_usd,
    toUInt64(count()) AS trades,
    max(ts) AS last_ts,
    groupUniqArray(toString(venue)) AS venues
FROM spot_trades
GROUP BY symbol, bucket;

-- Perpetual open interest and funding per (symbol, venue, minute): the venue's last published open interest
-- in the minute, its first/last funding rate, and the sum and count of its funding samples (mean = sum / count).
-- "Value at the newest (oldest) ts" is max (min) of ts_ms << 64 | reinterpretAsUInt64(value): the high half
-- orders by time, the low half carries the Float64's exact bits (decode: reinterpretAsFloat64(toUInt64(x)),
-- toUInt64 keeps the low 64 bits). NULL (not published in that message) is skipped; a minute without any
-- value merges to NULL.
CREATE TABLE IF NOT EXISTS market_perp_stats_1m
(
    symbol          LowCardinality(String),
    venue           LowCardinality(String),
    bucket          DateTime('UTC'),
    oi_last         SimpleAggregateFunction(max, Nullable(UInt128)),
    oi_usd_last     SimpleAggregateFunction(max, Nullable(UInt128)),
    funding_open    SimpleAggregateFunction(min, Nullable(UInt128)),
    funding_close   SimpleAggregateFunction(max, Nullable(UInt128)),
    funding_sum     SimpleAggregateFunction(sum, Float64),
    funding_count   SimpleAggregateFunction(sum, UInt64),
    last_ts         SimpleAggregateFunction(max, DateTime64(3, 'UTC'))
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(bucket)
ORDER BY (symbol, bucket, venue)
SETTINGS non_replicated_deduplication_window = 1000;

CREATE MATERIALIZED VIEW IF NOT EXISTS market_perp_stats_1m_mv TO market_perp_stats_1m AS
SELECT
    symbol,
    venue,
    toStartOfMinute(toDateTime(ts, 'UTC')) AS bucket,
    max(if(open_interest IS NULL, NULL, bitOr(bitShiftLeft(toUInt128(toUnixTimestamp64Milli(ts)), 64), toUInt128(reinterpretAsUInt64(assumeNotNull(open_interest)))))) AS oi_last,
    max(if(open_interest_usd IS NULL, NULL, bitOr(bitShiftLeft(toUInt128(toUnixTimestamp64Milli(ts)), 64), toUInt128(reinterpretAsUInt64(assumeNotNull(open_interest_usd)))))) AS oi_usd_last,
    min(if(funding_rate IS NULL, NULL, bitOr(bitShiftLeft(toUInt128(toUnixTimestamp64Milli(ts)), 64), toUInt128(reinterpretAsUInt64(assumeNotNull(funding_rate)))))) AS funding_open,
    max(if(funding_rate IS NULL, NULL, bitOr(bitShiftLeft(toUInt128(toUnixTimestamp64Milli(ts)), 64), toUInt128(reinterpretAsUInt64(assumeNotNull(funding_rate)))))) AS funding_close,
    sum(ifNull(funding_rate, 0)) AS funding_sum,
    toUInt64(count(funding_rate)) AS funding_count,
    max(ts) AS last_ts
FROM perp_stats
GROUP BY symbol, venue, bucket;

-- Liquidations, cross-venue, per (symbol, minute). side = the liquidated POSITION (long = a long force-sold).
CREATE TABLE IF NOT EXISTS market_liquidations_1m
(
    symbol          LowCardinality(String),
    bucket          DateTime('UTC'),
    long_size       SimpleAggregateFunction(sum, Float64),
    long_usd        SimpleAggregateFunction(sum, Float64),
    long_count      SimpleAggregateFunction(sum, UInt64),
    short_size      SimpleAggregateFunction(sum, Float64),
    short_usd       SimpleAggregateFunction(sum, Float64),
    short_count     SimpleAggregateFunction(sum, UInt64),
    last_ts         SimpleAggregateFunction(max, DateTime64(3, 'UTC')),
    venues          SimpleAggregateFunction(groupUniqArrayArray, Array(String))
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(bucket)
ORDER BY (symbol, bucket)
SETTINGS non_replicated_deduplication_window = 1000;

CREATE MATERIALIZED VIEW IF NOT EXISTS market_liquidations_1m_mv TO market_liquidations_1m AS
SELECT
    symbol,
    toStartOfMinute(toDateTime(ts, 'UTC')) AS bucket,
    sumIf(size, side = 'long') AS long_size,
    sumIf(price * size, side = 'long') AS long_usd,
    toUInt64(countIf(side = 'long')) AS long_count,
    sumIf(size, side = 'short') AS short_size,
    sumIf(price * size, side = 'short') AS short_usd,
    toUInt64(countIf(side = 'short')) AS short_count,
    max(ts) AS last_ts,
    groupUniqArray(toString(venue)) AS venues
FROM liquidations
GROUP BY symbol, bucket;
