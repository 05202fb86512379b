-- Option tickers: top of book, last price and 24 h volume (schemas/families.ts OPTION_TICKER, the fields added
-- after v1). NULL where the venue does not publish the value (ingest/README.md: option ticker fields by venue).
ALTER TABLE option_tickers
    ADD COLUMN IF NOT EXISTS price_currency LowCardinality(Nullable(String)),
    ADD COLUMN IF NOT EXISTS bid_price Nullable(Float64),
    ADD COLUMN IF NOT EXISTS ask_price Nullable(Float64),
    ADD COLUMN IF NOT EXISTS bid_price_usd Nullable(Float64),
    ADD COLUMN IF NOT EXISTS ask_price_usd Nullable(Float64),
    ADD COLUMN IF NOT EXISTS bid_size Nullable(Float64),
    ADD COLUMN IF NOT EXISTS ask_size Nullable(Float64),
    ADD COLUMN IF NOT EXISTS last_price Nullable(Float64),
    ADD COLUMN IF NOT EXISTS last_price_usd Nullable(Float64),
    ADD COLUMN IF NOT EXISTS volume24h Nullable(Float64);
