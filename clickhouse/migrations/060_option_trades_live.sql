-- Option trades of contracts not yet expired, ordered by expiry, for /v2/tape/flow-by-strike (cumulative prints on
-- contracts whose expiry date is today or later): the same rows as option_trades, copied by a view at insert, kept
-- until a day after their contract's expiry (TTL drops whole parts: partitioned by expiry month, a part goes when its
-- last contract is a day past expiry; readers filter on expiry, so lingering rows are never read). A read touches the
-- live contracts' trades only, not the whole history (measured: ~10.5 M trades a year, bench/flow-routes.ts).
-- ReplacingMergeTree on (symbol, expiry, venue, id): a redelivered trade collapses like in option_trades (read FINAL).
-- Rows already stored are copied once (only into an empty table: trades of contracts expiring from yesterday on).
CREATE TABLE IF NOT EXISTS option_trades_live
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
PARTITION BY toYYYYMM(expiry)
ORDER BY (symbol, expiry, venue, id)
TTL toDateTime(expiry, 'UTC') + INTERVAL 1 DAY
SETTINGS non_replicated_deduplication_window = 1000, ttl_only_drop_parts = 1;

INSERT INTO option_trades_live
SELECT venue, symbol, ts, received_at, id, instrument, strike, expiry, option_type, price, price_currency, price_usd, size, premium_usd, side,
  iv, index_price, underlying_price, trade_id, block
FROM option_trades
WHERE expiry >= now() - INTERVAL 1 DAY AND (SELECT count() FROM option_trades_live) = 0
SETTINGS insert_deduplicate = 0;

CREATE MATERIALIZED VIEW IF NOT EXISTS option_trades_live_mv TO option_trades_live AS
SELECT venue, symbol, ts, received_at, id, instrument, strike, expiry, option_type, price, price_currency, price_usd, size, premium_usd, side,
  iv, index_price, underlying_price, trade_id, block
FROM option_trades;
