/**
 * Server settings of the embedded engine (chDB), written into the configuration file it loads when the first session of
 * the process opens it (engine-access.ts writes the file). A ClickHouse server takes these from its own config.
 */

/**
 * Nice value of the threads while they run merges and mutations (`os_threads_nice_value_merge_mutate`; positive
 * values need no privilege). On a busy machine the INSERT statements and reads get the cores before the background
 * merges, which still take every cycle left over: at a steady 10,000 trades/s on 2 cores, five alternating pairs of
 * runs gave a receive -> stored p99 of 330-412 ms at 10 against 367-532 ms at 0 (bench/RESULTS.md "ingest").
 */
export const MERGE_THREADS_NICE = 10;

/** The `<clickhouse>` elements of those settings, one per line. */
export function engineServerSettingsXml(): string {
  return `  <os_threads_nice_value_merge_mutate>${MERGE_THREADS_NICE}</os_threads_nice_value_merge_mutate>\n`;
}
