/**
 * The cluster layout of every table the migrations create (clickhouse/README.md "Cluster schema"): the sharding
 * key of its Distributed table. Rule: the key hashes a subset of the table's ORDER BY columns, so every version of
 * a row (a redelivered event, a re-run checkpoint, a re-loaded file, a newer account version) lands on the shard
 * that holds the others, where ReplacingMergeTree collapses it (it only merges within one shard); FINAL through
 * the Distributed table is then exact. `cluster-ddl.test.ts` checks the rule against the migrations.
 */
export const SHARDING_KEYS: Readonly<Record<string, string>> = {
  // raw facts (001): spread evenly over shards by the event's identity; a redelivery goes where the first copy went
  instruments: 'cityHash64(symbol, venue, instrument)',
  option_trades: 'cityHash64(venue, id)',
  // unexpired-contract copies of option_trades (060, retired; 062): a trade lands where its raw row does
  option_trades_live: 'cityHash64(venue, id)',
  option_trades_unexpired: 'cityHash64(venue, id)',
  option_tickers: 'cityHash64(venue, id)',
  perp_trades: 'cityHash64(venue, id)',
  spot_trades: 'cityHash64(venue, id)',
  perp_stats: 'cityHash64(venue, id)',
  liquidations: 'cityHash64(venue, id)',
  index_prices: 'cityHash64(venue, id)',
  dead_letters: 'cityHash64(venue, id)',
  // snapshots (002): small; a symbol's history stays on one shard
  gex_snapshots: 'cityHash64(symbol)',
  gex_levels: 'cityHash64(symbol)',
  gamma_flow: 'cityHash64(symbol)',
  // stress rows (057): per tick and venue beside the symbol's snapshots
  gex_stress: 'cityHash64(symbol)',
  // the level series (061): a copy of gex_levels' study columns beside the symbol's snapshots
  gex_level_series: 'cityHash64(symbol)',
  // option chain snapshots (059): per tick beside the symbol's snapshots
  option_chain_snapshots: 'cityHash64(symbol)',
  option_chain_snapshots_5m: 'cityHash64(symbol)',
  option_chain_snapshots_1h: 'cityHash64(symbol)',
  // accounts (010): versions of a user / key collapse on one shard
  users: 'cityHash64(user_id)',
  api_keys: 'cityHash64(key_hash)',
  usage_events: 'cityHash64(user_id)',
  // MV-fed aggregate states (020, 022, 041): written by the local views on the shard of their source rows (partial
  // states per shard, merged by every read's GROUP BY); the key only places direct inserts (seeds, rebuilds)
  market_trades_1m: 'cityHash64(symbol)',
  market_perp_stats_1m: 'cityHash64(symbol)',
  market_liquidations_1m: 'cityHash64(symbol)',
  market_trades_1h: 'cityHash64(symbol)',
  market_trades_1d: 'cityHash64(symbol)',
  market_perp_stats_1h: 'cityHash64(symbol)',
  market_perp_stats_1d: 'cityHash64(symbol)',
  market_liquidations_1h: 'cityHash64(symbol)',
  market_liquidations_1d: 'cityHash64(symbol)',
  option_tape_1m: 'cityHash64(symbol)',
  vol_index_1h: 'cityHash64(symbol)',
  // reference data (030): a re-loaded unit replaces its row on the same shard
  etf_flows: 'cityHash64(region, asset)',
  cot_positions: 'cityHash64(market_code, report, variant)',
  filings_13f: 'cityHash64(filer_cik)',
  // dealer flow (040): a re-run checkpoint rewrites the same rows on the same shard
  dealer_inventory: 'cityHash64(symbol, venue, instrument)',
  dealer_inventory_ticks: 'cityHash64(symbol)',
};

/** Suffix of the replicated local table; the Distributed table keeps the public name every reader and writer uses. */
export const LOCAL_SUFFIX = '_local';

/** ZooKeeper / Keeper path of a local table's replicas: one replica set per shard. */
export function zooPath(localTable: string): string {
  return `/clickhouse/tables/{shard}/{database}/${localTable}`;
}
