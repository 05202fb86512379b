-- The level series: the study columns of gex_levels (spot, the all-expiry hvl / call resistance / put support, net
-- GEX) ordered by (symbol, model, computed_at) in default-size granules, for reads of a long window of one model
-- (/v2/gex/level-study reads a year of 30 s snapshots: 1,051,200 rows of one model). gex_levels keeps its
-- (symbol, computed_at, model) order in 32-row granules for point look-ups (as_of), where such a scan reads both
-- models through ~65,000 marks (measured on chDB over a year: 90 ms to count one model's rows there, 4 ms here).
-- Copied at insert by a view; ReplacingMergeTree on the natural key like gex_levels (a crash re-write of a tick is
-- the same content). Rows already stored are copied once, after the view exists (a row the view also copied is a
-- duplicate of the same content, collapsed by merges; readers keep one row per instant).
CREATE TABLE IF NOT EXISTS gex_level_series
(
    symbol          LowCardinality(String),
    model           LowCardinality(String),
    computed_at     DateTime64(3, 'UTC'),
    spot            Float64,
    hvl             Nullable(Float64),
    call_resistance Nullable(Float64),
    put_support     Nullable(Float64),
    net_gex         Float64
)
ENGINE = ReplacingMergeTree
PARTITION BY toYear(computed_at)
ORDER BY (symbol, model, computed_at)
SETTINGS non_replicated_deduplication_window = 1000;

CREATE MATERIALIZED VIEW IF NOT EXISTS gex_level_series_mv TO gex_level_series AS
SELECT symbol, model, computed_at, spot, hvl, call_resistance, put_support, net_gex
FROM gex_levels;

INSERT INTO gex_level_series
SELECT symbol, model, computed_at, spot, hvl, call_resistance, put_support, net_gex
FROM gex_levels
SETTINGS insert_deduplicate = 0;
