-- Resync of the materialized-view-fed states with their sources, in one statement per table (migration rules:
-- clickhouse/README.md "Migrations with live writers"). Views only see the inserts made after they exist: rows a
-- writer stored before migrations 020 / 041 created their views, between 022's copy of the minutes and its views,
-- or (before the runner's MODIFY QUERY rule) between 021's DROP and CREATE, are missing from the states. Each
-- statement below recomputes a state table from its source and inserts, per key, the recomputed order-independent
-- states (argMin/argMax, max/min, venue sets and masks: merging them again changes nothing) and the DIFFERENCE of
-- every sum and count (recomputed - stored; a negative count difference wraps in UInt64 and sums back exactly):
-- afterwards each key reads as its recompute. Keys whose source rows are gone (raw TTL) are left alone (only keys
-- of the recompute are written). The 1-minute rows inserted here also flow through migration 022's views into the
-- hourly and daily tables; those are then resynced with their minutes.
-- Safe with live writers: a statement reads the source and the state together (the embedded store runs one
-- statement at a time; on a server an insert landing inside the statement's own reads can still slip through).
-- Sources are read with FINAL (each event once), as `gex backfill --rebuild` does.

-- 1-minute states from the raw tables

INSERT INTO market_trades_1m (symbol, market, bucket, open, close, high, low, volume, volume_usd, buy_volume, buy_volume_usd, sell_volume, sell_volume_usd, trades, last_ts, venues, venue_mask)
SELECT symbol, market, bucket, r.open AS open, r.close AS close, r.high AS high, r.low AS low, r.volume - c.volume AS volume, r.volume_usd - c.volume_usd AS volume_usd, r.buy_volume - c.buy_volume AS buy_volume, r.buy_volume_usd - c.buy_volume_usd AS buy_volume_usd, r.sell_volume - c.sell_volume AS sell_volume, r.sell_volume_usd - c.sell_volume_usd AS sell_volume_usd, toUInt64(toInt64(r.trades) - toInt64(c.trades)) AS trades, r.last_ts AS last_ts, r.venues AS venues, r.venue_mask AS venue_mask
FROM (
  SELECT symbol, 'perp' AS market, toStartOfMinute(toDateTime(ts, 'UTC')) AS bucket,
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
  FROM perp_trades FINAL GROUP BY symbol, bucket
) AS r
LEFT JOIN (SELECT symbol, market, bucket, sum(volume) AS volume, sum(volume_usd) AS volume_usd, sum(buy_volume) AS buy_volume, sum(buy_volume_usd) AS buy_volume_usd, sum(sell_volume) AS sell_volume, sum(sell_volume_usd) AS sell_volume_usd, sum(trades) AS trades FROM market_trades_1m WHERE market = 'perp' GROUP BY symbol, market, bucket) AS c
USING (symbol, market, bucket)
WHERE r.trades != c.trades
SETTINGS insert_deduplicate = 0;

INSERT INTO market_trades_1m (symbol, market, bucket, open, close, high, low, volume, volume_usd, buy_volume, buy_volume_usd, sell_volume, sell_volume_usd, trades, last_ts, venues, venue_mask)
SELECT symbol, market, bucket, r.open AS open, r.close AS close, r.high AS high, r.low AS low, r.volume - c.volume AS volume, r.volume_usd - c.volume_usd AS volume_usd, r.buy_volume - c.buy_volume AS buy_volume, r.buy_volume_usd - c.buy_volume_usd AS buy_volume_usd, r.sell_volume - c.sell_volume AS sell_volume, r.sell_volume_usd - c.sell_volume_usd AS sell_volume_usd, toUInt64(toInt64(r.trades) - toInt64(c.trades)) AS trades, r.last_ts AS last_ts, r.venues AS venues, r.venue_mask AS venue_mask
FROM (
  SELECT symbol, 'spot' AS market, toStartOfMinute(toDateTime(ts, 'UTC')) AS bucket,
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
  FROM spot_trades FINAL GROUP BY symbol, bucket
) AS r
LEFT JOIN (SELECT symbol, market, bucket, sum(volume) AS volume, sum(volume_usd) AS volume_usd, sum(buy_volume) AS buy_volume, sum(buy_volume_usd) AS buy_volume_usd, sum(sell_volume) AS sell_volume, sum(sell_volume_usd) AS sell_volume_usd, sum(trades) AS trades FROM market_trades_1m WHERE market = 'spot' GROUP BY symbol, market, bucket) AS c
USING (symbol, market, bucket)
WHERE r.trades != c.trades
SETTINGS insert_deduplicate = 0;

INSERT INTO market_perp_stats_1m (symbol, venue, bucket, oi_last, oi_usd_last, funding_open, funding_close, funding_sum, funding_count, last_ts)
SELECT symbol, venue, bucket, r.oi_last AS oi_last, r.oi_usd_last AS oi_usd_last, r.funding_open AS funding_open, r.funding_close AS funding_close,
  r.funding_sum - c.funding_sum AS funding_sum, toUInt64(toInt64(r.funding_count) - toInt64(c.funding_count)) AS funding_count, r.last_ts AS last_ts
FROM (
  SELECT symbol, venue, toStartOfMinute(toDateTime(ts, 'UTC')) AS bucket,
    max(if(open_interest IS NULL, NULL, bitOr(bitShiftLeft(toUInt128(toUnixTimestamp64Milli(ts)), 64), toUInt128(reinterpretAsUInt64(assumeNotNull(open_interest)))))) AS oi_last,
    max(if(open_interest_usd IS NULL, NULL, bitOr(bitShiftLeft(toUInt128(toUnixTimestamp64Milli(ts)), 64), toUInt128(reinterpretAsUInt64(assumeNotNull(open_interest_usd)))))) AS oi_usd_last,
    min(if(funding_rate IS NULL, NULL, bitOr(bitShiftLeft(toUInt128(toUnixTimestamp64Milli(ts)), 64), toUInt128(reinterpretAsUInt64(assumeNotNull(funding_rate)))))) AS funding_open,
    max(if(funding_rate IS NULL, NULL, bitOr(bitShiftLeft(toUInt128(toUnixTimestamp64Milli(ts)), 64), toUInt128(reinterpretAsUInt64(assumeNotNull(funding_rate)))))) AS funding_close,
    sum(ifNull(funding_rate, 0)) AS funding_sum, toUInt64(count(funding_rate)) AS funding_count, max(ts) AS last_ts, toUInt64(count()) AS n
  FROM perp_stats FINAL GROUP BY symbol, venue, bucket
) AS r
LEFT JOIN (SELECT symbol, venue, bucket, sum(funding_sum) AS funding_sum, sum(funding_count) AS funding_count, max(last_ts) AS last_ts FROM market_perp_stats_1m GROUP BY symbol, venue, bucket) AS c
USING (symbol, venue, bucket)
SETTINGS insert_deduplicate = 0;

INSERT INTO market_liquidations_1m (symbol, bucket, long_size, long_usd, long_count, short_size, short_usd, short_count, last_ts, venues, venue_mask)
SELECT symbol, bucket, r.long_size - c.long_size AS long_size, r.long_usd - c.long_usd AS long_usd, toUInt64(toInt64(r.long_count) - toInt64(c.long_count)) AS long_count, r.short_size - c.short_size AS short_size, r.short_usd - c.short_usd AS short_usd, toUInt64(toInt64(r.short_count) - toInt64(c.short_count)) AS short_count,
  r.last_ts AS last_ts, r.venues AS venues, r.venue_mask AS venue_mask
FROM (
  SELECT symbol, toStartOfMinute(toDateTime(ts, 'UTC')) AS bucket,
    sumIf(size, side = 'long') AS long_size, sumIf(price * size, side = 'long') AS long_usd, toUInt64(countIf(side = 'long')) AS long_count,
    sumIf(size, side = 'short') AS short_size, sumIf(price * size, side = 'short') AS short_usd, toUInt64(countIf(side = 'short')) AS short_count,
    max(ts) AS last_ts, groupUniqArray(toString(venue)) AS venues,
    groupBitOr(if(indexOf(['deribit', 'bybit', 'okx', 'binance', 'derive', 'thalex', 'delta_india', 'delta', 'bullish', 'paradex'], toString(venue)) = 0, toUInt16(0), bitShiftLeft(toUInt16(1), indexOf(['deribit', 'bybit', 'okx', 'binance', 'derive', 'thalex', 'delta_india', 'delta', 'bullish', 'paradex'], toString(venue)) - 1))) AS venue_mask
  FROM liquidations FINAL GROUP BY symbol, bucket
) AS r
LEFT JOIN (SELECT symbol, bucket, sum(long_size) AS long_size, sum(long_usd) AS long_usd, sum(long_count) AS long_count, sum(short_size) AS short_size, sum(short_usd) AS short_usd, sum(short_count) AS short_count FROM market_liquidations_1m GROUP BY symbol, bucket) AS c
USING (symbol, bucket)
WHERE r.long_count != c.long_count OR r.short_count != c.short_count
SETTINGS insert_deduplicate = 0;

INSERT INTO option_tape_1m (symbol, bucket, venue, expiry, strike, option_type, side, trades, size, premium_usd, notional_usd, notional_missing, block_trades, block_size, block_premium_usd)
SELECT symbol, bucket, venue, expiry, strike, option_type, side, toUInt64(toInt64(r.trades) - toInt64(c.trades)) AS trades, r.size - c.size AS size, r.premium_usd - c.premium_usd AS premium_usd, r.notional_usd - c.notional_usd AS notional_usd, toUInt64(toInt64(r.notional_missing) - toInt64(c.notional_missing)) AS notional_missing, toUInt64(toInt64(r.block_trades) - toInt64(c.block_trades)) AS block_trades, r.block_size - c.block_size AS block_size, r.block_premium_usd - c.block_premium_usd AS block_premium_usd
FROM (
  SELECT symbol, toStartOfMinute(toDateTime(ts, 'UTC')) AS bucket, venue, expiry, strike, option_type, side,
    toUInt64(count()) AS trades, sum(q) AS size, sum(p) AS premium_usd, sum(q * ifNull(ref, 0)) AS notional_usd,
    toUInt64(countIf(ref IS NULL)) AS notional_missing, toUInt64(countIf(is_block)) AS block_trades,
    sumIf(q, is_block) AS block_size, sumIf(p, is_block) AS block_premium_usd
  FROM (
    SELECT symbol, ts, venue, expiry, strike, option_type, side, size AS q, premium_usd AS p,
           coalesce(index_price, underlying_price) AS ref, block AS is_block
    FROM option_trades FINAL
    WHERE isFinite(size) AND isFinite(premium_usd)
  )
  GROUP BY symbol, bucket, venue, expiry, strike, option_type, side
) AS r
LEFT JOIN (SELECT symbol, bucket, venue, expiry, strike, option_type, side, sum(trades) AS trades, sum(notional_missing) AS notional_missing, sum(block_trades) AS block_trades, sum(size) AS size, sum(premium_usd) AS premium_usd, sum(notional_usd) AS notional_usd, sum(block_size) AS block_size, sum(block_premium_usd) AS block_premium_usd FROM option_tape_1m GROUP BY symbol, bucket, venue, expiry, strike, option_type, side) AS c
USING (symbol, bucket, venue, expiry, strike, option_type, side)
WHERE r.trades != c.trades
SETTINGS insert_deduplicate = 0;

-- hourly and daily states from the 1-minute states (after the inserts above went through 022's views)

INSERT INTO market_trades_1h (symbol, market, bucket, open, close, high, low, volume, volume_usd, buy_volume, buy_volume_usd, sell_volume, sell_volume_usd, trades, last_ts, venues, venue_mask)
SELECT symbol, market, bucket, r.open AS open, r.close AS close, r.high AS high, r.low AS low, r.volume - c.volume AS volume, r.volume_usd - c.volume_usd AS volume_usd, r.buy_volume - c.buy_volume AS buy_volume, r.buy_volume_usd - c.buy_volume_usd AS buy_volume_usd, r.sell_volume - c.sell_volume AS sell_volume, r.sell_volume_usd - c.sell_volume_usd AS sell_volume_usd, toUInt64(toInt64(r.trades) - toInt64(c.trades)) AS trades, r.last_ts AS last_ts, r.venues AS venues, r.venue_mask AS venue_mask
FROM (
  SELECT m.symbol AS symbol, m.market AS market, toStartOfHour(m.bucket, 'UTC') AS bucket,
    argMinMergeState(m.open) AS open, argMaxMergeState(m.close) AS close, max(m.high) AS high, min(m.low) AS low,
    sum(m.volume) AS volume, sum(m.volume_usd) AS volume_usd, sum(m.buy_volume) AS buy_volume, sum(m.buy_volume_usd) AS buy_volume_usd, sum(m.sell_volume) AS sell_volume, sum(m.sell_volume_usd) AS sell_volume_usd, sum(m.trades) AS trades, max(m.last_ts) AS last_ts,
    groupUniqArrayArray(m.venues) AS venues, groupBitOr(m.venue_mask) AS venue_mask
  FROM market_trades_1m AS m GROUP BY symbol, market, bucket
) AS r
LEFT JOIN (SELECT symbol, market, bucket, sum(volume) AS volume, sum(volume_usd) AS volume_usd, sum(buy_volume) AS buy_volume, sum(buy_volume_usd) AS buy_volume_usd, sum(sell_volume) AS sell_volume, sum(sell_volume_usd) AS sell_volume_usd, sum(trades) AS trades FROM market_trades_1h GROUP BY symbol, market, bucket) AS c
USING (symbol, market, bucket)
WHERE r.trades != c.trades
SETTINGS insert_deduplicate = 0;

INSERT INTO market_perp_stats_1h (symbol, venue, bucket, oi_last, oi_usd_last, funding_open, funding_close, funding_sum, funding_count, last_ts)
SELECT symbol, venue, bucket, r.oi_last AS oi_last, r.oi_usd_last AS oi_usd_last, r.funding_open AS funding_open, r.funding_close AS funding_close,
  r.funding_sum - c.funding_sum AS funding_sum, toUInt64(toInt64(r.funding_count) - toInt64(c.funding_count)) AS funding_count, r.last_ts AS last_ts
FROM (
  SELECT m.symbol AS symbol, m.venue AS venue, toStartOfHour(m.bucket, 'UTC') AS bucket,
    max(m.oi_last) AS oi_last, max(m.oi_usd_last) AS oi_usd_last, min(m.funding_open) AS funding_open,
    max(m.funding_close) AS funding_close, sum(m.funding_sum) AS funding_sum, sum(m.funding_count) AS funding_count, max(m.last_ts) AS last_ts
  FROM market_perp_stats_1m AS m GROUP BY symbol, venue, bucket
) AS r
LEFT JOIN (SELECT symbol, venue, bucket, sum(funding_sum) AS funding_sum, sum(funding_count) AS funding_count FROM market_perp_stats_1h GROUP BY symbol, venue, bucket) AS c
USING (symbol, venue, bucket)
SETTINGS insert_deduplicate = 0;

INSERT INTO market_liquidations_1h (symbol, bucket, long_size, long_usd, long_count, short_size, short_usd, short_count, last_ts, venues, venue_mask)
SELECT symbol, bucket, r.long_size - c.long_size AS long_size, r.long_usd - c.long_usd AS long_usd, toUInt64(toInt64(r.long_count) - toInt64(c.long_count)) AS long_count, r.short_size - c.short_size AS short_size, r.short_usd - c.short_usd AS short_usd, toUInt64(toInt64(r.short_count) - toInt64(c.short_count)) AS short_count,
  r.last_ts AS last_ts, r.venues AS venues, r.venue_mask AS venue_mask
FROM (
  SELECT m.symbol AS symbol, toStartOfHour(m.bucket, 'UTC') AS bucket,
    sum(m.long_size) AS long_size, sum(m.long_usd) AS long_usd, sum(m.long_count) AS long_count, sum(m.short_size) AS short_size,
    sum(m.short_usd) AS short_usd, sum(m.short_count) AS short_count, max(m.last_ts) AS last_ts, groupUniqArrayArray(m.venues) AS venues,
    groupBitOr(m.venue_mask) AS venue_mask
  FROM market_liquidations_1m AS m GROUP BY symbol, bucket
) AS r
LEFT JOIN (SELECT symbol, bucket, sum(long_size) AS long_size, sum(long_usd) AS long_usd, sum(long_count) AS long_count, sum(short_size) AS short_size, sum(short_usd) AS short_usd, sum(short_count) AS short_count FROM market_liquidations_1h GROUP BY symbol, bucket) AS c
USING (symbol, bucket)
WHERE r.long_count != c.long_count OR r.short_count != c.short_count
SETTINGS insert_deduplicate = 0;

INSERT INTO market_trades_1d (symbol, market, bucket, open, close, high, low, volume, volume_usd, buy_volume, buy_volume_usd, sell_volume, sell_volume_usd, trades, last_ts, venues, venue_mask)
SELECT symbol, market, bucket, r.open AS open, r.close AS close, r.high AS high, r.low AS low, r.volume - c.volume AS volume, r.volume_usd - c.volume_usd AS volume_usd, r.buy_volume - c.buy_volume AS buy_volume, r.buy_volume_usd - c.buy_volume_usd AS buy_volume_usd, r.sell_volume - c.sell_volume AS sell_volume, r.sell_volume_usd - c.sell_volume_usd AS sell_volume_usd, toUInt64(toInt64(r.trades) - toInt64(c.trades)) AS trades, r.last_ts AS last_ts, r.venues AS venues, r.venue_mask AS venue_mask
FROM (
  SELECT m.symbol AS symbol, m.market AS market, toStartOfDay(m.bucket, 'UTC') AS bucket,
    argMinMergeState(m.open) AS open, argMaxMergeState(m.close) AS close, max(m.high) AS high, min(m.low) AS low,
    sum(m.volume) AS volume, sum(m.volume_usd) AS volume_usd, sum(m.buy_volume) AS buy_volume, sum(m.buy_volume_usd) AS buy_volume_usd, sum(m.sell_volume) AS sell_volume, sum(m.sell_volume_usd) AS sell_volume_usd, sum(m.trades) AS trades, max(m.last_ts) AS last_ts,
    groupUniqArrayArray(m.venues) AS venues, groupBitOr(m.venue_mask) AS venue_mask
  FROM market_trades_1m AS m GROUP BY symbol, market, bucket
) AS r
LEFT JOIN (SELECT symbol, market, bucket, sum(volume) AS volume, sum(volume_usd) AS volume_usd, sum(buy_volume) AS buy_volume, sum(buy_volume_usd) AS buy_volume_usd, sum(sell_volume) AS sell_volume, sum(sell_volume_usd) AS sell_volume_usd, sum(trades) AS trades FROM market_trades_1d GROUP BY symbol, market, bucket) AS c
USING (symbol, market, bucket)
WHERE r.trades != c.trades
SETTINGS insert_deduplicate = 0;

INSERT INTO market_perp_stats_1d (symbol, venue, bucket, oi_last, oi_usd_last, funding_open, funding_close, funding_sum, funding_count, last_ts)
SELECT symbol, venue, bucket, r.oi_last AS oi_last, r.oi_usd_last AS oi_usd_last, r.funding_open AS funding_open, r.funding_close AS funding_close,
  r.funding_sum - c.funding_sum AS funding_sum, toUInt64(toInt64(r.funding_count) - toInt64(c.funding_count)) AS funding_count, r.last_ts AS last_ts
FROM (
  SELECT m.symbol AS symbol, m.venue AS venue, toStartOfDay(m.bucket, 'UTC') AS bucket,
    max(m.oi_last) AS oi_last, max(m.oi_usd_last) AS oi_usd_last, min(m.funding_open) AS funding_open,
    max(m.funding_close) AS funding_close, sum(m.funding_sum) AS funding_sum, sum(m.funding_count) AS funding_count, max(m.last_ts) AS last_ts
  FROM market_perp_stats_1m AS m GROUP BY symbol, venue, bucket
) AS r
LEFT JOIN (SELECT symbol, venue, bucket, sum(funding_sum) AS funding_sum, sum(funding_count) AS funding_count FROM market_perp_stats_1d GROUP BY symbol, venue, bucket) AS c
USING (symbol, venue, bucket)
SETTINGS insert_deduplicate = 0;

INSERT INTO market_liquidations_1d (symbol, bucket, long_size, long_usd, long_count, short_size, short_usd, short_count, last_ts, venues, venue_mask)
SELECT symbol, bucket, r.long_size - c.long_size AS long_size, r.long_usd - c.long_usd AS long_usd, toUInt64(toInt64(r.long_count) - toInt64(c.long_count)) AS long_count, r.short_size - c.short_size AS short_size, r.short_usd - c.short_usd AS short_usd, toUInt64(toInt64(r.short_count) - toInt64(c.short_count)) AS short_count,
  r.last_ts AS last_ts, r.venues AS venues, r.venue_mask AS venue_mask
FROM (
  SELECT m.symbol AS symbol, toStartOfDay(m.bucket, 'UTC') AS bucket,
    sum(m.long_size) AS long_size, sum(m.long_usd) AS long_usd, sum(m.long_count) AS long_count, sum(m.short_size) AS short_size,
    sum(m.short_usd) AS short_usd, sum(m.short_count) AS short_count, max(m.last_ts) AS last_ts, groupUniqArrayArray(m.venues) AS venues,
    groupBitOr(m.venue_mask) AS venue_mask
  FROM market_liquidations_1m AS m GROUP BY symbol, bucket
) AS r
LEFT JOIN (SELECT symbol, bucket, sum(long_size) AS long_size, sum(long_usd) AS long_usd, sum(long_count) AS long_count, sum(short_size) AS short_size, sum(short_usd) AS short_usd, sum(short_count) AS short_count FROM market_liquidations_1d GROUP BY symbol, bucket) AS c
USING (symbol, bucket)
WHERE r.long_count != c.long_count OR r.short_count != c.short_count
SETTINGS insert_deduplicate = 0;
