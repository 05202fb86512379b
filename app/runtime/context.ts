import type { Config } from '#platform/settings.ts';
import type { Bus } from '#bus/types.ts';
import { createBus } from '#bus/create-bus.ts';
import type { Store } from '#clickhouse/store.ts';
import { openStore } from './open-store.ts';
import { migrate } from '#clickhouse/migrate.ts';
import { ensureProductTopics } from '#bus/topics.ts';
import { startMetricsServer } from '#platform/metrics/server.ts';
import { startSqlEndpoint } from './sql-endpoint.ts';
import { childLogger, type Logger } from '#platform/log.ts';

/** What every role of one process shares: configuration, the bus, the store, metrics and a logger. */
export interface RuntimeContext {
  readonly config: Config;
  readonly bus: Bus;
  readonly store: Store;
  readonly log: Logger;
  readonly metricsPort: number;
  /** URL of the store's SQL endpoint (ClickHouse HTTP) this process serves; null when it serves none. */
  readonly sqlUrl: string | null;
  /** Registers a shutdown step; steps run in reverse order of registration. */
  onShutdown(step: () => Promise<void>): void;
  shutdown(): Promise<void>;
}

export async function createRuntimeContext(config: Config, opts: { metrics?: boolean } = {}): Promise<RuntimeContext> {
  const log = childLogger('runtime');
  const steps: (() => Promise<void>)[] = [];
  const metrics = opts.metrics === false ? null : await startMetricsServer(config.host, config.metricsPort);
  if (metrics) steps.push(() => metrics.close());

  const store = await openStore(config);
  steps.push(() => store.close());
  const { applied } = await migrate(store, { ...(config.clickhouseCluster !== undefined ? { cluster: config.clickhouseCluster } : {}) });
  log.info({ store: store.kind, applied }, 'store ready');
  // The process holding the embedded store serves it over SQL (CLICKHOUSE_HTTP_PORT, on by default).
  let sql: Awaited<ReturnType<typeof startSqlEndpoint>> = null;
  if (store.kind === 'embedded') {
    try {
      sql = await startSqlEndpoint(config, log);
    } catch (err) {
      for (const step of steps.reverse()) await step().catch(() => undefined);
      throw err;
    }
  }
  if (sql !== null) steps.push(sql.close);

  const bus = createBus({ brokers: config.kafkaBrokers, clientId: config.kafkaClientId });
  await ensureProductTopics(bus, config.topicPartitions);
  steps.push(() => bus.close());
  log.info({ bus: bus.kind, metricsPort: metrics?.port ?? null }, 'bus ready');

  let closing: Promise<void> | null = null;
  return {
    config,
    bus,
    store,
    log,
    metricsPort: metrics?.port ?? 0,
    sqlUrl: sql?.url ?? null,
    onShutdown: (step) => steps.push(step),
    shutdown: () => {
      closing ??= (async () => {
        for (const step of steps.reverse()) {
          try {
            await step();
          } catch (err) {
            log.error({ err }, 'shutdown step failed');
          }
        }
      })();
      return closing;
    },
  };
}
