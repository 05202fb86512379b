-- Option trades of contracts not yet expired, for /v2/tape/flow-by-strike and the live flow book: the rows of
-- option_trades copied by a view at insert, ordered by (symbol, expiry, venue, id), kept until a day after their
-- contract's expiry. It takes over from option_trades_live (060), whose partitioning by expiry month split every
-- insert into one part per month of the expiries it carried: 5-12 parts, at ~10 ms each on the embedded engine
-- (measured: 50 trades 44-65 ms into the month-partitioned table, 12 ms into this one). One partition here, so one
-- part per insert; expired rows are deleted by the TTL at merges (within merge_with_ttl_timeout, 4 h by default), and
-- readers filter on expiry, so a row past its TTL but not yet merged away is never read.
-- ReplacingMergeTree on (symbol, expiry, venue, id): a redelivered trade collapses as in option_trades (read FINAL).
-- Order of the statements, with writers live: the new view first (every trade inserted from here on is copied), then
-- the copy of the rows already stored (a trade copied twice, by the view and by the copy, collapses), then
-- option_trades_live_mv stops writing (its query selects nothing; option_trades_live empties by its TTL).
CREATE TABLE IF NOT EXISTS option_trades_unexpired
(
    venue            LowCardinality(String),
    symbol           LowCardinality(String),
    ts               DateTime64(3, 'UTC'),
    received_at      DateTime64(3, 'UTC'),
    id               String,
    instrument       String,
    strike           Float64,
    expiry           DateTime64(3, 'UTC'),
    option_type      LowCardinality(String),
    price            Float64,
    price_currency   LowCardinality(String),
    price_usd        Float64,
    size             Float64,
    premium_usd      Float64,
    side             LowCardinality(String),
    iv               Nullable(Float64),
    index_price      Nullable(Float64),
    underlying_price Nullable(Float64),
    trade_id         String,
    block            Bool
)
ENGINE = ReplacingMergeTree
ORDER BY (symbol, expiry, venue, id)
TTL toDateTime(expiry, 'UTC') + INTERVAL 1 DAY
SETTINGS non_replicated_deduplication_window = 1000;

CREATE MATERIALIZED VIEW IF NOT EXISTS option_trades_unexpired_mv TO option_trades_unexpired AS
SELECT venue, symbol, ts, received_at, id, instrument, strike, expiry, option_type, price, price_currency, price_usd, size, premium_usd, side,
  iv, index_price, underlying_price, trade_id, block
FROM option_trades;

INSERT INTO option_trades_unexpired
SELECT venue, symbol, ts, received_at, id, instrument, strike, expiry, option_type, price, price_currency, price_usd, size, premium_usd, side,
  iv, index_price, underlying_price, trade_id, block
FROM option_trades
WHERE expiry >= now() - INTERVAL 1 DAY
SETTINGS insert_deduplicate = 0;

ALTER TABLE option_trades_live_mv MODIFY QUERY
SELECT venue, symbol, ts, received_at, id, instrument, strike, expiry, option_type, price, price_currency, price_usd, size, premium_usd, side,
  iv, index_price, underlying_price, trade_id, block
FROM option_trades
WHERE 0;
