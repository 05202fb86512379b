-- Dealer-flow checkpoints written by the dealer-flow processor (processors/dealer-flow/), read by the snapshot
-- processor's flow model and by data engineers. Dealer inventory of a contract = −Σ taker-signed size
-- (buy +, sell −) over its trades with ts ≤ the instant, discarded at expiry. Sizes are summed as integers of
-- 1e-9 coin (`inventory_nano`, round(size · 1e9) per trade), so sums are exact and independent of order: a
-- checkpoint plus the trades after it gives bit for bit what a full scan of every trade gives.

-- One row per (symbol, checkpoint_at, venue, instrument) that CHANGED since the previous checkpoint (cumulative
-- values, not deltas), plus, at a full checkpoint (`full`, every aligned hour and the first one a process
-- writes), one row for EVERY open contract (expiry > checkpoint_at) with at least one trade. The state at a
-- checkpoint c = per contract the row with the greatest checkpoint_at in [latest full checkpoint ≤ c, c].
-- Only checkpoints listed in dealer_inventory_ticks are complete.
CREATE TABLE IF NOT EXISTS dealer_inventory
(
    symbol          LowCardinality(String),
    checkpoint_at   DateTime64(3, 'UTC'),
    venue           LowCardinality(String),
    instrument      String,
    expiry          DateTime64(3, 'UTC'),
    -- dealer inventory in coins (inventory_nano / 1e9), unclipped (the snapshot clips it to ±OI)
    inventory       Float64,
    inventory_nano  Int64,
    -- trades counted into the inventory since the contract's first trade
    trades          UInt64,
    full            Bool
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(checkpoint_at)
ORDER BY (symbol, checkpoint_at, venue, instrument)
SETTINGS non_replicated_deduplication_window = 1000;

-- Completion marker: one row per written checkpoint (written after its dealer_inventory rows).
CREATE TABLE IF NOT EXISTS dealer_inventory_ticks
(
    symbol          LowCardinality(String),
    checkpoint_at   DateTime64(3, 'UTC'),
    full            Bool,
    -- rows written in dealer_inventory at this checkpoint; trades read since the previous checkpoint
    rows            UInt32,
    new_trades      UInt64
)
ENGINE = ReplacingMergeTree
ORDER BY (symbol, checkpoint_at)
SETTINGS non_replicated_deduplication_window = 1000;
