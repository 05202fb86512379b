-- Hourly volatility-index states (Deribit DVOL) for /v2/options/range and data engineers: one row per
-- (symbol, venue, name, hour) from index_prices rows of kind 'vol_index' (the live deribit_volatility_index.*
-- channel and the public/get_volatility_index_data backfill, ingest/deribit/dvol-history.ts). See
-- clickhouse/README.md "Volatility index hours".
--   open   argMin(value, ts): the first value of the hour (the backfill's candle open sits exactly at the hour start)
--   close  argMax(value, ts): the last value of the hour
--   last_ts newest source instant; points = rows aggregated (a redelivered or re-polled row counts again; open and
--   close are unaffected by duplicates because they are keyed on ts)
-- Rows already stored are copied once (only into an empty table), then the view takes every later insert.
CREATE TABLE IF NOT EXISTS vol_index_1h
(
    symbol  LowCardinality(String),
    venue   LowCardinality(String),
    name    LowCardinality(String),
    bucket  DateTime('UTC'),
    open    AggregateFunction(argMin, Float64, DateTime64(3, 'UTC')),
    close   AggregateFunction(argMax, Float64, DateTime64(3, 'UTC')),
    last_ts SimpleAggregateFunction(max, DateTime64(3, 'UTC')),
    points  SimpleAggregateFunction(sum, UInt64)
)
ENGINE = AggregatingMergeTree
PARTITION BY toYear(bucket)
ORDER BY (symbol, venue, name, bucket)
SETTINGS non_replicated_deduplication_window = 1000;

INSERT INTO vol_index_1h
SELECT symbol, venue, name, toStartOfHour(toDateTime(ts, 'UTC')) AS bucket,
  argMinState(value, ts) AS open, argMaxState(value, ts) AS close, max(ts) AS last_ts, toUInt64(count()) AS points
FROM index_prices
WHERE kind = 'vol_index' AND (SELECT count() FROM vol_index_1h) = 0
GROUP BY symbol, venue, name, bucket
SETTINGS insert_deduplicate = 0;

CREATE MATERIALIZED VIEW IF NOT EXISTS vol_index_1h_mv TO vol_index_1h AS
SELECT symbol, venue, name, toStartOfHour(toDateTime(ts, 'UTC')) AS bucket,
  argMinState(value, ts) AS open, argMaxState(value, ts) AS close, max(ts) AS last_ts, toUInt64(count()) AS points
FROM index_prices
WHERE kind = 'vol_index'
GROUP BY symbol, venue, name, bucket;
