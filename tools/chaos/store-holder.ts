/**
 * The chaos harness's store holder: one process that opens the embedded store (DATA_DIR), applies the migrations
 * and serves it on the ClickHouse-compatible HTTP endpoint (CLICKHOUSE_HTTP_PORT, CLICKHOUSE_HTTP_ADMIN_TOKEN), as
 * a ClickHouse server would for the other processes (CLICKHOUSE_URL). No role runs here; SIGTERM closes it.
 */
import { loadConfig } from '#platform/settings.ts';
import { createRuntimeContext } from '#app/runtime/context.ts';
import { untilSignal } from '#app/runtime/signals.ts';

const ctx = await createRuntimeContext(loadConfig(process.env));
process.exitCode = await untilSignal(ctx);
