-- Stress history (/v2/gex/stress-history, processors/README.md "Stress history"): per (symbol, computed_at,
-- venue) the venue's total dealer GEX (USD per 1%) at spot shocks −20 %, −15 %, …, +20 % under both models
-- (9 values each, the stored re-priced profile at those grid points) and the venue's re-priced profile values and
-- slopes (201 each, both models) so the zero-gamma level of any venue subset can be re-derived. Written by the
-- snapshot cycle after gex_snapshots and before gex_levels / gamma_flow (the completion marker), with a dedup
-- token per (table, symbol, computed_at). A range read of the shock columns is what the route does without a
-- venue filter (the zero-gamma level then comes from gex_levels.hvl).
CREATE TABLE IF NOT EXISTS gex_stress
(
    symbol             LowCardinality(String),
    computed_at        DateTime64(3, 'UTC'),
    venue              LowCardinality(String),
    spot               Float64,
    has_inventory      Bool,
    shock_std          Array(Float64),
    shock_flow         Array(Float64),
    profile_std        Array(Float64) CODEC(ZSTD(1)),
    profile_std_slope  Array(Float64) CODEC(ZSTD(1)),
    profile_flow       Array(Float64) CODEC(ZSTD(1)),
    profile_flow_slope Array(Float64) CODEC(ZSTD(1))
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(computed_at)
ORDER BY (symbol, computed_at, venue)
SETTINGS non_replicated_deduplication_window = 1000;
