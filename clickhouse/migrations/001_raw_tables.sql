-- Raw market facts: one table per normalized event family (schemas/events.ts), written by the raw writer.
-- Conventions (see clickhouse/README.md):
--   * column = snake_case of the TS field; times are DateTime64(3, 'UTC') (ms), never a local zone;
--   * `number | null` -> Nullable(Float64); categorical strings -> LowCardinality(String);
--   * delivery is at-least-once, so fact tables are ReplacingMergeTree keyed on (symbol, ts, venue, id):
--     a redelivered event has the same ts and id, lands in the same monthly partition and collapses on
--     merge (read with FINAL, or argMax / LIMIT 1 BY id, for exact counts);
--   * non_replicated_deduplication_window lets an INSERT retried with the same insert_deduplication_token
--     (or an identical block) be dropped at insert time, before any merge;
--   * TTLs drop whole parts (ttl_only_drop_parts), so expired months go at once.

-- Instrument reference data: latest version per (symbol, venue, instrument); ts is the version.
CREATE TABLE IF NOT EXISTS instruments
(
    venue               LowCardinality(String),
    symbol              LowCardinality(String),
    ts                  DateTime64(3, 'UTC'),
    received_at         DateTime64(3, 'UTC'),
    id                  String,
    instrument          String,
    kind                LowCardinality(String),
    strike              Nullable(Float64),
    expiry              Nullable(DateTime64(3, 'UTC')),
    option_type         LowCardinality(Nullable(String)),
    contract_size       Float64,
    settlement_currency LowCardinality(String),
    quote_currency      LowCardinality(String),
    active              Bool
)
ENGINE = ReplacingMergeTree(ts)
ORDER BY (symbol, venue, kind, instrument)
SETTINGS non_replicated_deduplication_window = 1000;

CREATE TABLE IF NOT EXISTS option_trades
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
PARTITION BY toYYYYMM(ts)
ORDER BY (symbol, ts, venue, id)
SETTINGS non_replicated_deduplication_window = 1000;

CREATE TABLE IF NOT EXISTS option_tickers
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
    mark_price       Nullable(Float64),
    mark_iv          Nullable(Float64),
    bid_iv           Nullable(Float64),
    ask_iv           Nullable(Float64),
    delta            Nullable(Float64),
    gamma            Nullable(Float64),
    vega             Nullable(Float64),
    theta            Nullable(Float64),
    open_interest    Nullable(Float64),
    underlying_price Nullable(Float64),
    index_price      Nullable(Float64)
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(ts)
ORDER BY (symbol, ts, venue, id)
TTL toDateTime(ts, 'UTC') + INTERVAL 90 DAY
SETTINGS non_replicated_deduplication_window = 1000, ttl_only_drop_parts = 1;

CREATE TABLE IF NOT EXISTS perp_trades
(
    venue       LowCardinality(String),
    symbol      LowCardinality(String),
    ts          DateTime64(3, 'UTC'),
    received_at DateTime64(3, 'UTC'),
    id          String,
    market      LowCardinality(String),
    instrument  String,
    price       Float64,
    size        Float64,
    side        LowCardinality(String),
    trade_id    String
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(ts)
ORDER BY (symbol, ts, venue, id)
TTL toDateTime(ts, 'UTC') + INTERVAL 365 DAY
SETTINGS non_replicated_deduplication_window = 1000, ttl_only_drop_parts = 1;

CREATE TABLE IF NOT EXISTS spot_trades
(
    venue       LowCardinality(String),
    symbol      LowCardinality(String),
    ts          DateTime64(3, 'UTC'),
    received_at DateTime64(3, 'UTC'),
    id          String,
    market      LowCardinality(String),
    instrument  String,
    price       Float64,
    size        Float64,
    side        LowCardinality(String),
    trade_id    String
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(ts)
ORDER BY (symbol, ts, venue, id)
TTL toDateTime(ts, 'UTC') + INTERVAL 365 DAY
SETTINGS non_replicated_deduplication_window = 1000, ttl_only_drop_parts = 1;

CREATE TABLE IF NOT EXISTS perp_stats
(
    venue             LowCardinality(String),
    symbol            LowCardinality(String),
    ts                DateTime64(3, 'UTC'),
    received_at       DateTime64(3, 'UTC'),
    id                String,
    instrument        String,
    open_interest     Nullable(Float64),
    open_interest_usd Nullable(Float64),
    funding_rate      Nullable(Float64),
    next_funding_time Nullable(DateTime64(3, 'UTC')),
    mark_price        Nullable(Float64),
    index_price       Nullable(Float64)
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(ts)
ORDER BY (symbol, ts, venue, id)
TTL toDateTime(ts, 'UTC') + INTERVAL 365 DAY
SETTINGS non_replicated_deduplication_window = 1000, ttl_only_drop_parts = 1;

CREATE TABLE IF NOT EXISTS liquidations
(
    venue       LowCardinality(String),
    symbol      LowCardinality(String),
    ts          DateTime64(3, 'UTC'),
    received_at DateTime64(3, 'UTC'),
    id          String,
    instrument  String,
    side        LowCardinality(String),
    price       Float64,
    size        Float64
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(ts)
ORDER BY (symbol, ts, venue, id)
SETTINGS non_replicated_deduplication_window = 1000;

CREATE TABLE IF NOT EXISTS index_prices
(
    venue       LowCardinality(String),
    symbol      LowCardinality(String),
    ts          DateTime64(3, 'UTC'),
    received_at DateTime64(3, 'UTC'),
    id          String,
    kind        LowCardinality(String),
    name        LowCardinality(String),
    value       Float64
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(ts)
ORDER BY (symbol, ts, venue, id)
TTL toDateTime(ts, 'UTC') + INTERVAL 365 DAY
SETTINGS non_replicated_deduplication_window = 1000, ttl_only_drop_parts = 1;

-- Frames that failed to parse/validate. No symbol/ts: keyed on the receive time.
CREATE TABLE IF NOT EXISTS dead_letters
(
    venue       LowCardinality(String),
    channel     LowCardinality(String),
    reason      String,
    raw         String,
    encoding    LowCardinality(String),
    received_at DateTime64(3, 'UTC'),
    id          String
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(received_at)
ORDER BY (venue, received_at, id)
TTL toDateTime(received_at, 'UTC') + INTERVAL 30 DAY
SETTINGS non_replicated_deduplication_window = 1000, ttl_only_drop_parts = 1;
