-- Accounts of the query API: users (plan and subscription status), hashed API keys and metered usage.
-- The portal (or `gex users` / `gex keys`) writes users and api_keys; every change is a plain INSERT of the
-- whole row with a newer updated_at (ReplacingMergeTree keeps the newest version per key; read with FINAL).
-- API keys are never stored: only the SHA-256 (hex) of the full key and a short public key_id for listing.

CREATE TABLE IF NOT EXISTS users
(
    user_id    String,
    plan       LowCardinality(String),
    status     LowCardinality(String),
    evaluation Bool,
    updated_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(updated_at)
ORDER BY user_id;

CREATE TABLE IF NOT EXISTS api_keys
(
    key_hash   String,
    key_id     String,
    user_id    String,
    created_at DateTime64(3, 'UTC'),
    revoked_at Nullable(DateTime64(3, 'UTC')),
    updated_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(updated_at)
ORDER BY key_hash;

-- Metered REST usage: each API process appends one row per (user, month) per flush with the units it let
-- through. The monthly quota used so far is sum(units) for (user_id, month). month = YYYYMM (UTC).
CREATE TABLE IF NOT EXISTS usage_events
(
    user_id  String,
    month    UInt32,
    units    UInt32,
    ts       DateTime64(3, 'UTC'),
    instance String
)
ENGINE = MergeTree
PARTITION BY month
ORDER BY (month, user_id, ts)
SETTINGS non_replicated_deduplication_window = 1000;
