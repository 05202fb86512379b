/**
 * The name of every application metric, in one place. Prometheus conventions: one application prefix (`gex_`),
 * snake_case, the base unit in the name (`_seconds`, `_messages`, `_ratio`), `_total` on counters only.
 * README's operations section lists each with its labels; tools/observability/metric-catalogue.test.ts keeps that list, the
 * registry of a running product and these names in step, and the dashboards and Prometheus rules (ops/grafana,
 * ops/prometheus) may only name metrics from here. The client library's standard process_* and nodejs_* metrics
 * keep their usual names.
 */
export const METRIC = {
  // bus (bus)
  busPublishedMessages: 'gex_bus_published_messages_total',
  busConsumedMessages: 'gex_bus_consumed_messages_total',
  busPublishErrors: 'gex_bus_publish_errors_total',
  busHandlerErrors: 'gex_bus_handler_errors_total',
  busCommitErrors: 'gex_bus_commit_errors_total',
  busConsumerRestarts: 'gex_bus_consumer_restarts_total',
  busProducerReplacements: 'gex_bus_producer_replacements_total',
  busConsumerLag: 'gex_bus_consumer_lag_messages',
  // pipeline steps (platform/steps)
  stepDuration: 'gex_pipeline_step_duration_seconds',
  stepRetries: 'gex_pipeline_step_retries_total',
  stepSkipped: 'gex_pipeline_step_skipped_total',
  stepDeadLetters: 'gex_pipeline_step_dead_letters_total',
  // store (clickhouse)
  storeInsertDuration: 'gex_store_insert_duration_seconds',
  storeInsertedRows: 'gex_store_inserted_rows_total',
  storeQueryDuration: 'gex_store_query_duration_seconds',
  storeWaitingReads: 'gex_store_waiting_reads',
  storeErrors: 'gex_store_errors_total',
  // ingest (ingest/transport, ingest/pipeline)
  ingestEvents: 'gex_ingest_events_total',
  ingestParseErrors: 'gex_ingest_parse_errors_total',
  ingestFrames: 'gex_ingest_frames_total',
  ingestIgnoredFrames: 'gex_ingest_ignored_frames_total',
  ingestReconnects: 'gex_ingest_reconnects_total',
  ingestStaleReconnects: 'gex_ingest_stale_reconnects_total',
  ingestReadPauses: 'gex_ingest_read_pauses_total',
  ingestOpenConnections: 'gex_ingest_open_connections',
  ingestRestRequests: 'gex_ingest_rest_requests_total',
  ingestRestRequestDuration: 'gex_ingest_rest_request_duration_seconds',
  ingestVenueLag: 'gex_ingest_venue_lag_seconds',
  ingestDuplicateTrades: 'gex_ingest_duplicate_trades_total',
  ingestGapFills: 'gex_ingest_gap_fills_total',
  ingestGapFillTrades: 'gex_ingest_gap_fill_trades_total',
  ingestSpoolBytes: 'gex_ingest_spool_bytes',
  ingestPublishBacklog: 'gex_ingest_publish_backlog_messages',
  ingestSpooledMessages: 'gex_ingest_spooled_messages_total',
  // processors
  rawWriterRows: 'gex_raw_writer_rows_total',
  rawWriterUndecodable: 'gex_raw_writer_undecodable_messages_total',
  snapshotCycleDuration: 'gex_snapshot_cycle_duration_seconds',
  snapshotsWritten: 'gex_snapshots_written_total',
  snapshotTicksSkipped: 'gex_snapshot_ticks_skipped_total',
  snapshotOffsetLookupErrors: 'gex_snapshot_offset_lookup_errors_total',
  snapshotDrainUnconfirmed: 'gex_snapshot_drain_unconfirmed_total',
  snapshotAnnounceFailures: 'gex_snapshot_announce_failures_total',
  snapshotInstruments: 'gex_snapshot_instruments',
  snapshotAge: 'gex_snapshot_age_seconds',
  snapshotFlowCoverage: 'gex_snapshot_flow_inventory_coverage_ratio',
  snapshotLeaseHeld: 'gex_snapshot_lease_held_ratio',
  // query API
  apiRequestDuration: 'gex_api_request_duration_seconds',
  apiMarketCacheLookups: 'gex_api_market_cache_lookups_total',
  apiRouteCacheLookups: 'gex_api_route_cache_lookups_total',
  apiStoreBreakerOpen: 'gex_api_store_breaker_open_ratio',
  apiStoreBreakerTransitions: 'gex_api_store_breaker_transitions_total',
  apiTapeReads: 'gex_api_tape_reads_total',
  apiTapeTailRows: 'gex_api_tape_tail_rows',
  apiTapeTailRepaired: 'gex_api_tape_tail_repaired_total',
  apiLiveFlowReads: 'gex_api_live_flow_reads_total',
  apiLiveFlowTrades: 'gex_api_live_flow_rows',
  apiLiveFlowRepaired: 'gex_api_live_flow_repaired_total',
  apiTradeMirrorSkipped: 'gex_api_trade_mirror_skipped_total',
  apiTlsReloads: 'gex_api_tls_reloads_total',
  // WebSocket feed (query-api/ws)
  wsConnections: 'gex_ws_connections',
  wsSubscriptions: 'gex_ws_subscriptions',
  wsMessagesSent: 'gex_ws_messages_sent_total',
  wsBytesSent: 'gex_ws_bytes_sent_total',
  wsSlowConsumerDisconnects: 'gex_ws_slow_consumer_disconnects_total',
  wsFeedSkipped: 'gex_ws_feed_skipped_total',
  wsFeedDropped: 'gex_ws_feed_dropped_total',
  wsCloses: 'gex_ws_closes_total',
  wsFanout: 'gex_ws_fanout_seconds',
  // Replays (query-api/replay)
  replaysActive: 'gex_running_replays',
  replays: 'gex_replays_total',
  replayMessages: 'gex_replay_messages_total',
  replayThreadEnds: 'gex_replay_thread_ends_total',
} as const;

export type MetricName = (typeof METRIC)[keyof typeof METRIC];
