-- The consolidated option chain at every 30 s snapshot tick (processors/snapshots/option-chain.ts), one row per
-- (symbol, computed_at, venue, instrument): exactly the contracts the GEX engine used at that tick (fresh tickers of
-- listed, unexpired contracts), with spot and the mean perp mark of the tick (USD), the contract's forward (USD) and
-- T (years, ACT/365 from computed_at), top of book and last price (USD per coin of underlying), sizes, open interest
-- and 24 h volume (coins), IVs (fractions), greeks per coin (delta; gamma per USD; vega per vol point; theta per day)
-- and where each greek comes from (venue = as published, computed = Black-76 with r = 0 on the forward, none = no
-- mark IV), and the measured dealer inventory (coins, flow model; null when not measured).
-- Retention (clickhouse/README.md "Option chain snapshots", budget measured there): every tick for 3 days;
-- ticks on a 5-minute boundary for 35 days; ticks on an hour boundary for 366 days. The processor writes the same
-- rows to every table whose step divides the tick, each insert with its own dedup token.
CREATE TABLE IF NOT EXISTS option_chain_snapshots
(
    symbol          LowCardinality(String),
    computed_at     DateTime64(3, 'UTC'),
    spot            Float64,
    perp_price      Nullable(Float64),
    venue           LowCardinality(String),
    instrument      String,
    expiry          DateTime64(3, 'UTC'),
    strike          Float64,
    option_type     LowCardinality(String),
    t_years         Float64,
    forward         Float64,
    bid_price_usd   Nullable(Float64),
    ask_price_usd   Nullable(Float64),
    bid_size        Nullable(Float64),
    ask_size        Nullable(Float64),
    mark_price_usd  Nullable(Float64),
    last_price_usd  Nullable(Float64),
    mark_iv         Nullable(Float64),
    bid_iv          Nullable(Float64),
    ask_iv          Nullable(Float64),
    delta           Nullable(Float64),
    gamma           Nullable(Float64),
    vega            Nullable(Float64),
    theta           Nullable(Float64),
    delta_source    Enum8('none' = 0, 'venue' = 1, 'computed' = 2),
    gamma_source    Enum8('none' = 0, 'venue' = 1, 'computed' = 2),
    vega_source     Enum8('none' = 0, 'venue' = 1, 'computed' = 2),
    theta_source    Enum8('none' = 0, 'venue' = 1, 'computed' = 2),
    open_interest   Float64,
    volume_24h      Nullable(Float64),
    dealer_inventory Nullable(Float64),
    ticker_ts       DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMMDD(computed_at)
ORDER BY (symbol, computed_at, venue, instrument)
TTL toDateTime(computed_at, 'UTC') + INTERVAL 3 DAY
SETTINGS non_replicated_deduplication_window = 1000, ttl_only_drop_parts = 1, index_granularity = 1024;

CREATE TABLE IF NOT EXISTS option_chain_snapshots_5m
(
    symbol          LowCardinality(String),
    computed_at     DateTime64(3, 'UTC'),
    spot            Float64,
    perp_price      Nullable(Float64),
    venue           LowCardinality(String),
    instrument      String,
    expiry          DateTime64(3, 'UTC'),
    strike          Float64,
    option_type     LowCardinality(String),
    t_years         Float64,
    forward         Float64,
    bid_price_usd   Nullable(Float64),
    ask_price_usd   Nullable(Float64),
    bid_size        Nullable(Float64),
    ask_size        Nullable(Float64),
    mark_price_usd  Nullable(Float64),
    last_price_usd  Nullable(Float64),
    mark_iv         Nullable(Float64),
    bid_iv          Nullable(Float64),
    ask_iv          Nullable(Float64),
    delta           Nullable(Float64),
    gamma           Nullable(Float64),
    vega            Nullable(Float64),
    theta           Nullable(Float64),
    delta_source    Enum8('none' = 0, 'venue' = 1, 'computed' = 2),
    gamma_source    Enum8('none' = 0, 'venue' = 1, 'computed' = 2),
    vega_source     Enum8('none' = 0, 'venue' = 1, 'computed' = 2),
    theta_source    Enum8('none' = 0, 'venue' = 1, 'computed' = 2),
    open_interest   Float64,
    volume_24h      Nullable(Float64),
    dealer_inventory Nullable(Float64),
    ticker_ts       DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMMDD(computed_at)
ORDER BY (symbol, computed_at, venue, instrument)
TTL toDateTime(computed_at, 'UTC') + INTERVAL 35 DAY
SETTINGS non_replicated_deduplication_window = 1000, ttl_only_drop_parts = 1, index_granularity = 1024;

CREATE TABLE IF NOT EXISTS option_chain_snapshots_1h
(
    symbol          LowCardinality(String),
    computed_at     DateTime64(3, 'UTC'),
    spot            Float64,
    perp_price      Nullable(Float64),
    venue           LowCardinality(String),
    instrument      String,
    expiry          DateTime64(3, 'UTC'),
    strike          Float64,
    option_type     LowCardinality(String),
    t_years         Float64,
    forward         Float64,
    bid_price_usd   Nullable(Float64),
    ask_price_usd   Nullable(Float64),
    bid_size        Nullable(Float64),
    ask_size        Nullable(Float64),
    mark_price_usd  Nullable(Float64),
    last_price_usd  Nullable(Float64),
    mark_iv         Nullable(Float64),
    bid_iv          Nullable(Float64),
    ask_iv          Nullable(Float64),
    delta           Nullable(Float64),
    gamma           Nullable(Float64),
    vega            Nullable(Float64),
    theta           Nullable(Float64),
    delta_source    Enum8('none' = 0, 'venue' = 1, 'computed' = 2),
    gamma_source    Enum8('none' = 0, 'venue' = 1, 'computed' = 2),
    vega_source     Enum8('none' = 0, 'venue' = 1, 'computed' = 2),
    theta_source    Enum8('none' = 0, 'venue' = 1, 'computed' = 2),
    open_interest   Float64,
    volume_24h      Nullable(Float64),
    dealer_inventory Nullable(Float64),
    ticker_ts       DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(computed_at)
ORDER BY (symbol, computed_at, venue, instrument)
TTL toDateTime(computed_at, 'UTC') + INTERVAL 366 DAY
SETTINGS non_replicated_deduplication_window = 1000, ttl_only_drop_parts = 1, index_granularity = 1024;
