-- Hourly and daily market states (cascaded roll-ups): the same columns and state types as the 1-minute tables of
-- migrations 020/021, one row per hour (day) instead of per minute, so a year at 1h reads ~8.8k rows per key
-- instead of ~525k. Readers pick the coarsest table whose bucket divides the requested interval: 1m/5m/15m/30m
-- from *_1m, 1h/4h from *_1h, 1d from *_1d (query-api/market/sql.ts). See clickhouse/README.md "Market series".
--   * bucket = toStartOfHour / toStartOfDay of the minute, UTC, as DateTime('UTC') (the *_1m convention);
--   * fed by materialized views ON THE 1-MINUTE TABLES (not on each other): every block written to a *_1m table
--     (by its own MV from a raw insert, by `gex backfill --rebuild`, or directly) is aggregated once more. The
--     states merge (argMinMergeState / argMaxMergeState, max/min of the packed UInt128 values, sums, groupBitOr),
--     so an hour's state equals the state of its minutes: OHLC, last values, venue masks and counts exactly, Float64
--     sums up to the order of addition (as two reads of the 1-minute table already are). Nothing is carried forward;
--   * non_replicated_deduplication_window as on the 1-minute tables: a retried raw batch the 1-minute tables drop
--     is dropped here too (the MV block inherits a token derived from its source block's; query-api/market/dedup.test);
--   * existing minutes are copied first (only into an empty table: re-running this file adds nothing twice), then the
--     views are created. No existing view is dropped or recreated. A writer running DURING this migration (a shared
--     ClickHouse server) can have its rows of those seconds missing from the coarse tables:
--     `gex backfill --rebuild --days N` re-derives them (clickhouse/market-rebuild.ts).

CREATE TABLE IF NOT EXISTS market_trades_1h AS market_trades_1m
ENGINE = AggregatingMergeTree PARTITION BY toYear(bucket) ORDER BY (symbol, market, bucket)
SETTINGS non_replicated_deduplication_window = 1000;

CREATE TABLE IF NOT EXISTS market_trades_1d AS market_trades_1m
ENGINE = AggregatingMergeTree PARTITION BY toYear(bucket) ORDER BY (symbol, market, bucket)
SETTINGS non_replicated_deduplication_window = 1000;

CREATE TABLE IF NOT EXISTS market_perp_stats_1h AS market_perp_stats_1m
ENGINE = AggregatingMergeTree PARTITION BY toYear(bucket) ORDER BY (symbol, bucket, venue)
SETTINGS non_replicated_deduplication_window = 1000;

CREATE TABLE IF NOT EXISTS market_perp_stats_1d AS market_perp_stats_1m
ENGINE = AggregatingMergeTree PARTITION BY toYear(bucket) ORDER BY (symbol, bucket, venue)
SETTINGS non_replicated_deduplication_window = 1000;

CREATE TABLE IF NOT EXISTS market_liquidations_1h AS market_liquidations_1m
ENGINE = AggregatingMergeTree PARTITION BY toYear(bucket) ORDER BY (symbol, bucket)
SETTINGS non_replicated_deduplication_window = 1000;

CREATE TABLE IF NOT EXISTS market_liquidations_1d AS market_liquidations_1m
ENGINE = AggregatingMergeTree PARTITION BY toYear(bucket) ORDER BY (symbol, bucket)
SETTINGS non_replicated_deduplication_window = 1000;

-- Existing minutes first (only into an empty table), the views second: see above.

INSERT INTO market_trades_1h
SELECT m.symbol AS symbol, m.market AS market, toStartOfHour(m.bucket, 'UTC') AS bucket,
  argMinMergeState(m.open) AS open, argMaxMergeState(m.close) AS close, max(m.high) AS high, min(m.low) AS low,
  sum(m.volume) AS volume, sum(m.volume_usd) AS volume_usd, sum(m.buy_volume) AS buy_volume, sum(m.buy_volume_usd) AS buy_volume_usd,
  sum(m.sell_volume) AS sell_volume, sum(m.sell_volume_usd) AS sell_volume_usd, sum(m.trades) AS trades, max(m.last_ts) AS last_ts,
  groupUniqArrayArray(m.venues) AS venues, groupBitOr(m.venue_mask) AS venue_mask
FROM market_trades_1m AS m
WHERE (SELECT count() FROM market_trades_1h) = 0
GROUP BY symbol, market, bucket
SETTINGS insert_deduplicate = 0;

INSERT INTO market_trades_1d
SELECT m.symbol AS symbol, m.market AS market, toStartOfDay(m.bucket, 'UTC') AS bucket,
  argMinMergeState(m.open) AS open, argMaxMergeState(m.close) AS close, max(m.high) AS high, min(m.low) AS low,
  sum(m.volume) AS volume, sum(m.volume_usd) AS volume_usd, sum(m.buy_volume) AS buy_volume, sum(m.buy_volume_usd) AS buy_volume_usd,
  sum(m.sell_volume) AS sell_volume, sum(m.sell_volume_usd) AS sell_volume_usd, sum(m.trades) AS trades, max(m.last_ts) AS last_ts,
  groupUniqArrayArray(m.venues) AS venues, groupBitOr(m.venue_mask) AS venue_mask
FROM market_trades_1m AS m
WHERE (SELECT count() FROM market_trades_1d) = 0
GROUP BY symbol, market, bucket
SETTINGS insert_deduplicate = 0;

INSERT INTO market_perp_stats_1h
SELECT m.symbol AS symbol, m.venue AS venue, toStartOfHour(m.bucket, 'UTC') AS bucket,
  max(m.oi_last) AS oi_last, max(m.oi_usd_last) AS oi_usd_last, min(m.funding_open) AS funding_open,
  max(m.funding_close) AS funding_close, sum(m.funding_sum) AS funding_sum, sum(m.funding_count) AS funding_count, max(m.last_ts) AS last_ts
FROM market_perp_stats_1m AS m
WHERE (SELECT count() FROM market_perp_stats_1h) = 0
GROUP BY symbol, venue, bucket
SETTINGS insert_deduplicate = 0;

INSERT INTO market_perp_stats_1d
SELECT m.symbol AS symbol, m.venue AS venue, toStartOfDay(m.bucket, 'UTC') AS bucket,
  max(m.oi_last) AS oi_last, max(m.oi_usd_last) AS oi_usd_last, min(m.funding_open) AS funding_open,
  max(m.funding_close) AS funding_close, sum(m.funding_sum) AS funding_sum, sum(m.funding_count) AS funding_count, max(m.last_ts) AS last_ts
FROM market_perp_stats_1m AS m
WHERE (SELECT count() FROM market_perp_stats_1d) = 0
GROUP BY symbol, venue, bucket
SETTINGS insert_deduplicate = 0;

INSERT INTO market_liquidations_1h
SELECT m.symbol AS symbol, toStartOfHour(m.bucket, 'UTC') AS bucket,
  sum(m.long_size) AS long_size, sum(m.long_usd) AS long_usd, sum(m.long_count) AS long_count, sum(m.short_size) AS short_size,
  sum(m.short_usd) AS short_usd, sum(m.short_count) AS short_count, max(m.last_ts) AS last_ts, groupUniqArrayArray(m.venues) AS venues,
  groupBitOr(m.venue_mask) AS venue_mask
FROM market_liquidations_1m AS m
WHERE (SELECT count() FROM market_liquidations_1h) = 0
GROUP BY symbol, bucket
SETTINGS insert_deduplicate = 0;

INSERT INTO market_liquidations_1d
SELECT m.symbol AS symbol, toStartOfDay(m.bucket, 'UTC') AS bucket,
  sum(m.long_size) AS long_size, sum(m.long_usd) AS long_usd, sum(m.long_count) AS long_count, sum(m.short_size) AS short_size,
  sum(m.short_usd) AS short_usd, sum(m.short_count) AS short_count, max(m.last_ts) AS last_ts, groupUniqArrayArray(m.venues) AS venues,
  groupBitOr(m.venue_mask) AS venue_mask
FROM market_liquidations_1m AS m
WHERE (SELECT count() FROM market_liquidations_1d) = 0
GROUP BY symbol, bucket
SETTINGS insert_deduplicate = 0;

-- The cascade: every later block written to a 1-minute table, aggregated to its hour and to its day.

CREATE MATERIALIZED VIEW IF NOT EXISTS market_trades_1h_mv TO market_trades_1h AS
SELECT m.symbol AS symbol, m.market AS market, toStartOfHour(m.bucket, 'UTC') AS bucket,
  argMinMergeState(m.open) AS open, argMaxMergeState(m.close) AS close, max(m.high) AS high, min(m.low) AS low,
  sum(m.volume) AS volume, sum(m.volume_usd) AS volume_usd, sum(m.buy_volume) AS buy_volume, sum(m.buy_volume_usd) AS buy_volume_usd,
  sum(m.sell_volume) AS sell_volume, sum(m.sell_volume_usd) AS sell_volume_usd, sum(m.trades) AS trades, max(m.last_ts) AS last_ts,
  groupUniqArrayArray(m.venues) AS venues, groupBitOr(m.venue_mask) AS venue_mask
FROM market_trades_1m AS m
GROUP BY symbol, market, bucket;

CREATE MATERIALIZED VIEW IF NOT EXISTS market_trades_1d_mv TO market_trades_1d AS
SELECT m.symbol AS symbol, m.market AS market, toStartOfDay(m.bucket, 'UTC') AS bucket,
  argMinMergeState(m.open) AS open, argMaxMergeState(m.close) AS close, max(m.high) AS high, min(m.low) AS low,
  sum(m.volume) AS volume, sum(m.volume_usd) AS volume_usd, sum(m.buy_volume) AS buy_volume, sum(m.buy_volume_usd) AS buy_volume_usd,
  sum(m.sell_volume) AS sell_volume, sum(m.sell_volume_usd) AS sell_volume_usd, sum(m.trades) AS trades, max(m.last_ts) AS last_ts,
  groupUniqArrayArray(m.venues) AS venues, groupBitOr(m.venue_mask) AS venue_mask
FROM market_trades_1m AS m
GROUP BY symbol, market, bucket;

CREATE MATERIALIZED VIEW IF NOT EXISTS market_perp_stats_1h_mv TO market_perp_stats_1h AS
SELECT m.symbol AS symbol, m.venue AS venue, toStartOfHour(m.bucket, 'UTC') AS bucket,
  max(m.oi_last) AS oi_last, max(m.oi_usd_last) AS oi_usd_last, min(m.funding_open) AS funding_open,
  max(m.funding_close) AS funding_close, sum(m.funding_sum) AS funding_sum, sum(m.funding_count) AS funding_count, max(m.last_ts) AS last_ts
FROM market_perp_stats_1m AS m
GROUP BY symbol, venue, bucket;

CREATE MATERIALIZED VIEW IF NOT EXISTS market_perp_stats_1d_mv TO market_perp_stats_1d AS
SELECT m.symbol AS symbol, m.venue AS venue, toStartOfDay(m.bucket, 'UTC') AS bucket,
  max(m.oi_last) AS oi_last, max(m.oi_usd_last) AS oi_usd_last, min(m.funding_open) AS funding_open,
  max(m.funding_close) AS funding_close, sum(m.funding_sum) AS funding_sum, sum(m.funding_count) AS funding_count, max(m.last_ts) AS last_ts
FROM market_perp_stats_1m AS m
GROUP BY symbol, venue, bucket;

CREATE MATERIALIZED VIEW IF NOT EXISTS market_liquidations_1h_mv TO market_liquidations_1h AS
SELECT m.symbol AS symbol, toStartOfHour(m.bucket, 'UTC') AS bucket,
  sum(m.long_size) AS long_size, sum(m.long_usd) AS long_usd, sum(m.long_count) AS long_count, sum(m.short_size) AS short_size,
  sum(m.short_usd) AS short_usd, sum(m.short_count) AS short_count, max(m.last_ts) AS last_ts, groupUniqArrayArray(m.venues) AS venues,
  groupBitOr(m.venue_mask) AS venue_mask
FROM market_liquidations_1m AS m
GROUP BY symbol, bucket;

CREATE MATERIALIZED VIEW IF NOT EXISTS market_liquidations_1d_mv TO market_liquidations_1d AS
SELECT m.symbol AS symbol, toStartOfDay(m.bucket, 'UTC') AS bucket,
  sum(m.long_size) AS long_size, sum(m.long_usd) AS long_usd, sum(m.long_count) AS long_count, sum(m.short_size) AS short_size,
  sum(m.short_usd) AS short_usd, sum(m.short_count) AS short_count, max(m.last_ts) AS last_ts, groupUniqArrayArray(m.venues) AS venues,
  groupBitOr(m.venue_mask) AS venue_mask
FROM market_liquidations_1m AS m
GROUP BY symbol, bucket;
