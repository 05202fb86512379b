-- Option tape aggregates (/v2/tape/*, data engineers): per minute and per (symbol, venue, expiry, strike,
-- option_type, taker side), filled by a materialized view from option_trades. See clickhouse/README.md
-- "Option tape aggregates". Same conventions as 020_market_series: bucket = toStartOfMinute(ts) as
-- DateTime('UTC'); the target carries non_replicated_deduplication_window, so a retried raw-writer batch is
-- dropped in the source AND here; an event redelivered in a DIFFERENT batch is counted twice here (bounded to
-- the batches in flight at a crash; option_trades FINAL is the exact source).
--   size         coins of underlying
--   premium_usd  Σ price_usd × size (USD paid for the options)
--   notional_usd Σ size × index price (USD value of the underlying; the underlying price when the venue gave no
--                index; trades with neither add 0 and are counted in notional_missing)
--   block_*      the same sums over block trades only: block share = block_premium_usd / premium_usd (or by
--                count: block_trades / trades)
CREATE TABLE IF NOT EXISTS option_tape_1m
(
    symbol            LowCardinality(String),
    bucket            DateTime('UTC'),
    venue             LowCardinality(String),
    expiry            DateTime64(3, 'UTC'),
    strike            Float64,
    option_type       LowCardinality(String),
    side              LowCardinality(String),
    trades            UInt64,
    size              Float64,
    premium_usd       Float64,
    notional_usd      Float64,
    notional_missing  UInt64,
    block_trades      UInt64,
    block_size        Float64,
    block_premium_usd Float64
)
ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(bucket)
ORDER BY (symbol, bucket, venue, expiry, strike, option_type, side)
SETTINGS non_replicated_deduplication_window = 1000;

-- (the inner SELECT renames size/premium: an alias equal to a column name would shadow the column)
CREATE MATERIALIZED VIEW IF NOT EXISTS option_tape_1m_mv TO option_tape_1m AS
SELECT
    symbol,
    toStartOfMinute(toDateTime(ts, 'UTC')) AS bucket,
    venue,
    expiry,
    strike,
    option_type,
    side,
    toUInt64(count()) AS trades,
    sum(q) AS size,
    sum(p) AS premium_usd,
    sum(q * ifNull(ref, 0)) AS notional_usd,
    toUInt64(countIf(ref IS NULL)) AS notional_missing,
    toUInt64(countIf(is_block)) AS block_trades,
    sumIf(q, is_block) AS block_size,
    sumIf(p, is_block) AS block_premium_usd
FROM
(
    SELECT symbol, ts, venue, expiry, strike, option_type, side, size AS q, premium_usd AS p,
           coalesce(index_price, underlying_price) AS ref, block AS is_block
    FROM option_trades
    WHERE isFinite(size) AND isFinite(premium_usd)
)
GROUP BY symbol, bucket, venue, expiry, strike, option_type, side;
