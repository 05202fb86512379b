-- Venue bitmask of the trades and liquidations minutes: `venue_mask` has bit i set when venue VENUES[i]
-- contributed to the minute (schemas/events.ts order: deribit, bybit, okx, binance, derive, thalex,
-- delta_india, delta, bullish, paradex = bits 0 … 9). A roll-up ORs the masks
-- (groupBitOr, 2 bytes a row) instead of merging the `venues` string arrays: the market routes no longer run a
-- second scan per series for its venues (~70 ms of a year-long bundle). `venues` stays for ad-hoc SQL. A venue
-- appended to VENUES takes the next bit; the list here and in processors/backfill/rebuild.ts must follow it
-- (clickhouse/migrations.test checks both).

ALTER TABLE market_trades_1m ADD COLUMN IF NOT EXISTS venue_mask SimpleAggregateFunction(groupBitOr, UInt16);
ALTER TABLE market_liquidations_1m ADD COLUMN IF NOT EXISTS venue_mask SimpleAggregateFunction(groupBitOr, UInt16);

-- The views are recreated with the new column (nothing is ingested while migrations run: they run at start).
DROP VIEW IF EXISTS market_perp_trades_1m_mv;
DROP VIEW IF EXISTS market_spot_trades_1m_mv;
DROP VIEW IF EXISTS market_liquidations_1m_mv;

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
    groupUniqArray(toString(venue)) AS venues,
    groupBitOr(if(indexOf(['deribit', 'bybit', 'okx', 'binance', 'derive', 'thalex', 'delta_india', 'delta', 'bullish', 'paradex'], toString(venue)) = 0, toUInt16(0), bitShiftLeft(toUInt16(1), indexOf(['deribit', 'bybit', 'okx', 'binance', 'derive', 'thalex', 'delta_india', 'delta', 'bullish', 'paradex'], toString(venue)) - 1))) AS venue_mask
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
    groupUniqArray(toString(venue)) AS venues,
    groupBitOr(if(indexOf(['deribit', 'bybit', 'okx', 'binance', 'derive', 'thalex', 'delta_india', 'delta', 'bullish', 'paradex'], toString(venue)) = 0, toUInt16(0), bitShiftLeft(toUInt16(1), indexOf(['deribit', 'bybit', 'okx', 'binance', 'derive', 'thalex', 'delta_india', 'delta', 'bullish', 'paradex'], toString(venue)) - 1))) AS venue_mask
FROM spot_trades
GROUP BY symbol, bucket;

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
    groupUniqArray(toString(venue)) AS venues,
    groupBitOr(if(indexOf(['deribit', 'bybit', 'okx', 'binance', 'derive', 'thalex', 'delta_india', 'delta', 'bullish', 'paradex'], toString(venue)) = 0, toUInt16(0), bitShiftLeft(toUInt16(1), indexOf(['deribit', 'bybit', 'okx', 'binance', 'derive', 'thalex', 'delta_india', 'delta', 'bullish', 'paradex'], toString(venue)) - 1))) AS venue_mask
FROM liquidations
GROUP BY symbol, bucket;

-- Minutes stored before this migration: the mask from their `venues`.
ALTER TABLE market_trades_1m UPDATE venue_mask = toUInt16(arraySum(arrayMap(v -> if(indexOf(['deribit', 'bybit', 'okx', 'binance', 'derive', 'thalex', 'delta_india', 'delta', 'bullish', 'paradex'], v) = 0, 0, bitShiftLeft(1, indexOf(['deribit', 'bybit', 'okx', 'binance', 'derive', 'thalex', 'delta_india', 'delta', 'bullish', 'paradex'], v) - 1)), arrayDistinct(venues)))) WHERE venue_mask = 0 SETTINGS mutations_sync = 2;
ALTER TABLE market_liquidations_1m UPDATE venue_mask = toUInt16(arraySum(arrayMap(v -> if(indexOf(['deribit', 'bybit', 'okx', 'binance', 'derive', 'thalex', 'delta_india', 'delta', 'bullish', 'paradex'], v) = 0, 0, bitShiftLeft(1, indexOf(['deribit', 'bybit', 'okx', 'binance', 'derive', 'thalex', 'delta_india', 'delta', 'bullish', 'paradex'], v) - 1)), arrayDistinct(venues)))) WHERE venue_mask = 0 SETTINGS mutations_sync = 2;
