-- GEX snapshots written by the snapshot processor (processors/snapshots/), read by the /v2/gex routes.
-- Conventions as in 001: times DateTime64(3, 'UTC'); every table is a ReplacingMergeTree keyed on the natural
-- key of one snapshot, and every INSERT carries an insert_deduplication_token naming (table, symbol,
-- computed_at), so a cycle re-run after a crash stores nothing twice (non_replicated_deduplication_window),
-- and whatever slips through collapses on merge.

-- One row per (symbol, venue, computed_at): everything levelsFromRows needs to re-extract the levels of any
-- venue subset under either model from stored rows alone (processors/analytics/snapshot-row.ts).
-- The strike tables, profiles, near-expiry blocks and expiry statistics of both models are packed into the one
-- column `levels_pack` (base64 of little-endian Float64 values, layout in processors/snapshots/level-pack.ts and
-- clickhouse/README.md): a point read costs about 0.5 ms per column stream, so a venue-filtered as_of lookup
-- reads one column, not ~20. Scalars, diagnostics, inventory statistics, `expiries` and the heatmap cells are
-- also stored readable. Rows are wide (~30-60 KB per venue), so granules are small: a lookup of one instant
-- decompresses 32 rows, not 8192.
CREATE TABLE IF NOT EXISTS gex_snapshots
(
    symbol             LowCardinality(String),
    venue              LowCardinality(String),
    computed_at        DateTime64(3, 'UTC'),
    spot               Float64,
    perp_price         Nullable(Float64),
    grid_min           Float64,
    grid_step          Float64,
    grid_points        UInt16,
    has_inventory      Bool,
    instruments_used   UInt32,
    skipped_no_iv      UInt32,
    dropped_expired    UInt32,
    t_floored          UInt32,
    -- both models' all-expiry strike table, profiles (grid x_j = grid_min + j * grid_step), near-expiry blocks
    -- and expiry statistics, packed (see above)
    levels_pack        String CODEC(ZSTD(1)),
    -- JSON of ExpiryStat[] (per expiry: ATM IV, its OI weight, per-strike OI), readable copy of the packed one
    expiries           String CODEC(ZSTD(3)),
    -- net GEX by (expiry, strike), one entry per listed pair (strike-expiry heatmap), both models
    cell_expiry        Array(DateTime64(3, 'UTC')),
    cell_strike        Array(Float64),
    cell_gex_std       Array(Float64),
    cell_gex_flow      Array(Float64),
    -- flow-model inventory statistics over the venue's open contracts (coverage = inv_abs / oi_total)
    inv_contracts      UInt32,
    inv_net            Float64,
    inv_abs            Float64,
    inv_unclipped_net  Float64,
    oi_total           Float64,
    -- 'live' (in-memory state at the tick) or 'store' (rebuilt from the raw tables as of computed_at)
    source             LowCardinality(String)
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(computed_at)
ORDER BY (symbol, computed_at, venue)
SETTINGS non_replicated_deduplication_window = 1000, index_granularity = 32;

-- Aggregate (all venues) levels per (symbol, computed_at, requested model), for data engineers, and the
-- as_of index: a completed cycle has its two rows here, and an all-venue as_of read is one lookup of `payload`
-- (~20 KB, hence the small granules).
-- `positioning` is the model that actually ran (flow falls back to std for SOL/HYPE or without inventory).
CREATE TABLE IF NOT EXISTS gex_levels
(
    symbol               LowCardinality(String),
    computed_at          DateTime64(3, 'UTC'),
    model                LowCardinality(String),
    positioning          LowCardinality(String),
    spot                 Float64,
    perp_price           Nullable(Float64),
    hvl                  Nullable(Float64),
    call_resistance      Nullable(Float64),
    call_wall_2          Nullable(Float64),
    call_wall_3          Nullable(Float64),
    put_support          Nullable(Float64),
    put_wall_2           Nullable(Float64),
    put_wall_3           Nullable(Float64),
    net_gex              Float64,
    odte_hvl             Nullable(Float64),
    odte_call_resistance Nullable(Float64),
    odte_put_support     Nullable(Float64),
    max_pain             Nullable(Float64),
    coverage             Nullable(Float64),
    venues               Array(LowCardinality(String)),
    -- the full LevelsData JSON (every optional block)
    payload              String CODEC(ZSTD(3))
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(computed_at)
ORDER BY (symbol, computed_at, model)
SETTINGS non_replicated_deduplication_window = 1000, index_granularity = 32;

-- Gamma flow per (symbol, model, computed_at): pct_change = (spot / prev_spot − 1) × 100 vs the previous
-- stored snapshot (0 for the first), increment = pct_change × net_gex (net GEX of this snapshot, USD per 1%),
-- cumulative = running sum of increments since the first snapshot of the series.
CREATE TABLE IF NOT EXISTS gamma_flow
(
    symbol           LowCardinality(String),
    computed_at      DateTime64(3, 'UTC'),
    model            LowCardinality(String),
    positioning      LowCardinality(String),
    spot             Float64,
    prev_computed_at Nullable(DateTime64(3, 'UTC')),
    prev_spot        Nullable(Float64),
    pct_change       Float64,
    net_gex          Float64,
    increment        Float64,
    cumulative       Float64
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(computed_at)
ORDER BY (symbol, model, computed_at)
SETTINGS non_replicated_deduplication_window = 1000;
