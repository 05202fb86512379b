import type { Config } from '#platform/settings.ts';
import type { Bus } from '#bus/types.ts';
import { createBus } from '#bus/create-bus.ts';
import type { Store } from '#clickhouse/store.ts';
import { openStore } from './open-store.ts';
import { migrate } from '#clickhouse/migrate.ts';
import { ensureProductTopics } from '#bus/topics.ts';
import { startMetricsServer } from '#platform/metrics/server.ts';
import { startClickHouseHttp } from '#clickhouse/http-endpoint.ts';
import { resolve } from 'node:path';
import { removeStoreEndpoint, writeStoreEndpoint } from './store-endpoint.ts';
import { childLogger, type Logger } from '#platform/log.ts';

/** What every role of one process shares: configuration, the bus, the store, metrics and a logger. */
export interface RuntimeContext {
  readonly config: Config;
  readonly bus: Bus;
  readonly store: Store;
  readonly log: Logger;
  readonly metricsPort: number;
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
  if (config.clickhouseHttpPort !== undefined && store.kind === 'embedded') {
    const http = await startClickHouseHttp({
      dataPath: resolve(config.dataDir, 'clickhouse'),
      database: config.clickhouseDatabase,
      host: config.clickhouseHttpHost,
      port: config.clickhouseHttpPort,
      ...(config.clickhouseHttpAdminToken !== undefined ? { adminToken: config.clickhouseHttpAdminToken } : {}),
    });
    steps.push(() => http.close());
    writeStoreEndpoint(config.dataDir, http.url);
    steps.push(() => Promise.resolve(removeStoreEndpoint(config.dataDir)));
    log.info(
      { url: http.url, admin: config.clickhouseHttpAdminToken !== undefined },
      'ClickHouse HTTP endpoint serving the embedded store',
    );
  }

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
