/**
 * The multi-machine topology on one machine: every role in its own process, as they run on separate hosts.
 *   - store: a ClickHouse server at CLICKHOUSE_URL, or (here) a store holder serving the embedded store on its
 *     ClickHouse-compatible HTTP endpoint (tools/chaos/store-holder.ts), which every other process uses as a server;
 *   - `gex ingest` × K (the venues split between them), publishing to Kafka;
 *   - `gex processors` × M in the consumer groups `raw-writer` and `gex-snapshots`, sharing the partitions;
 *   - `gex query-api` × N, stateless, sharing rate-limit and quota counters through Redis (REDIS_URL).
 * Each process has its own environment, data directory, metrics port and log file (<workDir>/logs/<name>.log).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Supervisor, type ProcessSpec } from '../chaos/supervisor.ts';
import { answers200, freePort } from '../chaos/ports.ts';
import { roleEnv } from '../chaos/role-env.ts';
import { createStore, type Store } from '#clickhouse/store.ts';
import { SETTINGS } from '#platform/settings.ts';
import { AccountsRepository } from '#query-api/accounts/repository.ts';

export interface ExternalStore {
  readonly url: string;
  readonly user: string;
  readonly password: string;
}

export interface TopologyOptions {
  readonly root: string;
  readonly workDir: string;
  readonly brokers: readonly string[];
  readonly redisUrl: string;
  readonly apis: number;
  readonly processors: number;
  readonly ingests: number;
  readonly venues: readonly string[];
  /** Ingest fed by the sandbox market each ingest process starts for its venues (as `gex demo`); else live venues. */
  readonly sandbox: boolean;
  /** A ClickHouse server; unset: a store holder serving the embedded store under workDir. */
  readonly store?: ExternalStore;
  readonly snapshotIntervalMs?: number;
  readonly topicPartitions?: number;
  /** ACCOUNTS_REFRESH_MS of the APIs: a key created through one replica is known to the others within this. */
  readonly accountsRefreshMs?: number;
  /** Extra environment of every role (e.g. LOG_LEVEL). */
  readonly env?: NodeJS.ProcessEnv;
  /** The supervisor to start the processes under (its log directory); default one on <workDir>/logs. */
  readonly supervisor?: Supervisor;
}

export interface ApiReplica {
  readonly name: string;
  readonly url: string;
  readonly adminPort: number;
}

export interface Topology {
  readonly sup: Supervisor;
  readonly apis: readonly ApiReplica[];
  readonly processors: readonly string[];
  readonly ingests: readonly string[];
  /** The store's HTTP URL and the writing user (admin on the store holder). */
  readonly clickhouse: ExternalStore;
  /** A client of the store, as that user (closed by close()). */
  readonly store: Store;
  /** Process name -> its /metrics URL. */
  readonly metrics: ReadonlyMap<string, string>;
  /** An active user with this plan and a new key in the account tables (the APIs load them every ACCOUNTS_REFRESH_MS). */
  createKey(userId: string, plan: string): Promise<string>;
  close(): Promise<void>;
}

const CLI = ['--import', 'tsx', 'app/cli/main.ts'];
/** A start (tsx, the store, topics, group joins) on a busy 2-core machine can take minutes. */
const READY_TIMEOUT_MS = 180_000;

/** Venues of ingest process `i` of `k`: dealt in turn, so each process gets a share of the big and the small. */
export function venuesOf(venues: readonly string[], i: number, k: number): string[] {
  return venues.filter((_, j) => j % k === i);
}

export async function startTopology(o: TopologyOptions): Promise<Topology> {
  const logDir = join(o.workDir, 'logs');
  mkdirSync(logDir, { recursive: true });
  const sup = o.supervisor ?? new Supervisor(o.root, logDir);
  const metrics = new Map<string, string>();
  const adminToken = randomBytes(16).toString('hex');
  const storePort = o.store === undefined ? await freePort() : 0;
  const store: ExternalStore = o.store ?? { url: `http://127.0.0.1:${storePort}`, user: 'admin', password: adminToken };
  const base = async (name: string): Promise<NodeJS.ProcessEnv> => {
    const { env, metricsPort } = await roleEnv({
      workDir: o.workDir,
      name,
      clientPrefix: 'gex',
      brokers: o.brokers,
      venues: o.venues,
      store: { reads: { url: store.url, user: store.user, password: store.password } },
      extra: {
        ...o.env,
        TOPIC_PARTITIONS: String(o.topicPartitions ?? 6),
        ...(o.snapshotIntervalMs !== undefined ? { SNAPSHOT_INTERVAL_MS: String(o.snapshotIntervalMs) } : {}),
      },
    });
    metrics.set(name, `http://127.0.0.1:${metricsPort}/metrics`);
    return env;
  };
  const refreshMs = o.accountsRefreshMs ?? 2000;
  const serves = (name: string) => () => answers200(metrics.get(name) ?? '');

  const ingests = Array.from({ length: o.ingests }, (_, i) => (o.ingests === 1 ? 'ingest' : `ingest-${i + 1}`));
  const processors = Array.from({ length: o.processors }, (_, i) => `processors-${i + 1}`);
  const apis: ApiReplica[] = [];
  const specs: ProcessSpec[] = [];
  for (const name of processors)
    specs.push({ name, args: [...CLI, 'processors'], env: await base(name), ready: serves(name), readyTimeoutMs: READY_TIMEOUT_MS });
  for (let i = 0; i < o.apis; i++) {
    const name = `query-api-${i + 1}`;
    const port = await freePort();
    const adminPort = await freePort();
    apis.push({ name, url: `http://127.0.0.1:${port}`, adminPort });
    const env = {
      ...(await base(name)),
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      REDIS_URL: o.redisUrl,
      // Every process shares this machine's cores: a Redis reply can take longer than the product's 50 ms default
      // (beyond it a replica counts alone, X-RateLimit-Fallback). Between hosts on one network 50 ms is ample.
      REDIS_TIMEOUT_MS: '1000',
      ACCOUNTS_REFRESH_MS: String(refreshMs),
    };
    const ready = (): Promise<boolean> => answers200(`http://127.0.0.1:${port}/v2/health`);
    specs.push({ name, args: [...CLI, 'query-api'], env, ready, readyTimeoutMs: READY_TIMEOUT_MS });
  }
  for (const [i, name] of ingests.entries()) {
    const env = { ...(await base(name)), VENUES: venuesOf(o.venues, i, o.ingests).join(','), SANDBOX: String(o.sandbox) };
    specs.push({ name, args: [...CLI, 'ingest'], env, ready: serves(name), readyTimeoutMs: READY_TIMEOUT_MS });
  }

  try {
    // The store holder first (it applies the migrations), then the roles two at a time (a start costs a core for seconds).
    if (o.store === undefined) {
      const env = {
        ...(await base('store')),
        CLICKHOUSE_URL: '',
        CLICKHOUSE_HTTP_PORT: String(storePort),
        CLICKHOUSE_HTTP_ADMIN_TOKEN: adminToken,
      };
      await sup.start({
        name: 'store',
        args: ['--import', 'tsx', 'tools/chaos/store-holder.ts'],
        env,
        ready: () => answers200(`${store.url}/ping`),
        readyTimeoutMs: READY_TIMEOUT_MS,
      });
    }
    for (let i = 0; i < specs.length; i += 2) await Promise.all(specs.slice(i, i + 2).map((s) => sup.start(s)));
  } catch (err) {
    await sup.stopAll();
    throw err;
  }

  const client = await createStore({ url: store.url, username: store.user, password: store.password, dataPath: o.workDir });
  const accounts = new AccountsRepository(client);
  return {
    sup,
    apis,
    processors,
    ingests,
    clickhouse: store,
    store: client,
    metrics,
    createKey: async (userId, plan) => {
      await accounts.upsertUser({ userId, plan, status: 'active', evaluation: false });
      const { key } = await accounts.createKey(userId, process.env['API_KEY_PREFIX'] ?? SETTINGS.apiKeyPrefix.default);
      await new Promise((r) => setTimeout(r, refreshMs + 500));
      return key;
    },
    close: async () => {
      await client.close().catch(() => undefined);
      await sup.stopAll();
    },
  };
}
