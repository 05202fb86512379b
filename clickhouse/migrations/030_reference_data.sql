-- Reference data loaded from files by `gex load etf|cot|13f` (ingest/reference): spot-ETF daily flows, CFTC
-- Commitments of Traders and SEC 13F holdings. One row per unit a source file covers (a day of one asset's
-- fund table, a market-week of one COT report, a filer's quarter), with the per-fund / per-category /
-- per-holding values as parallel arrays: loading a file writes the whole unit, so re-loading it changes
-- nothing and a corrected file replaces every value of the units it covers (a fund or holding it dropped
-- disappears too). ReplacingMergeTree(loaded_at): the newest load of a key wins; read with FINAL.

CREATE TABLE IF NOT EXISTS etf_flows
(
    region      LowCardinality(String),
    asset       LowCardinality(String),
    date        Date,
    funds       Array(String),
    flows_usd_m Array(Float64),
    total_usd_m Float64,
    source_file String,
    loaded_at   DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(loaded_at)
ORDER BY (region, asset, date);

CREATE TABLE IF NOT EXISTS cot_positions
(
    market_code    String,
    report         LowCardinality(String),
    variant        LowCardinality(String),
    report_date    Date,
    market_name    String,
    contract_units String,
    open_interest  Float64,
    categories     Array(String),
    long           Array(Nullable(Float64)),
    short          Array(Nullable(Float64)),
    spread         Array(Nullable(Float64)),
    source_file    String,
    loaded_at      DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(loaded_at)
ORDER BY (market_code, report, variant, report_date);

CREATE TABLE IF NOT EXISTS filings_13f
(
    filer_cik   String,
    period_end  Date,
    part        String,
    filer_name  String,
    unit        LowCardinality(String),
    cusips      Array(String),
    issuers     Array(String),
    shares      Array(Float64),
    values_usd  Array(Float64),
    source_file String,
    loaded_at   DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(loaded_at)
ORDER BY (filer_cik, period_end, part);
