/**
 * The role outage test's processes: two deployments, each on its own private broker, both fed by one sandbox process
 * (SANDBOX_URLS), each process with its own environment and log file (tools/chaos/supervisor.ts):
 * - split: a store holder (the embedded store on the ClickHouse endpoint), `gex ingest`, `gex processors` and
 *   `gex query-api`, writing and reading through the endpoint (CLICKHOUSE_URL);
 * - all: `gex all` with its own embedded store, served on its own endpoint (read by the comparison).
 * Each deployment can start a joiner: one more `gex processors` in the same consumer groups, whose arrival makes the
 * running processor rejoin its groups (the group-join outage).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createStore, type Store } from '#clickhouse/store.ts';
import { Supervisor, type ProcessSpec } from '../supervisor.ts';
import { answers200, freePort } from '../ports.ts';
import { KafkaWatch } from '../kafka-watch.ts';
import { createApiKey } from './api-key.ts';
import type { BrokerControl } from '../kafka-broker.ts';
import { adminLogin, roleEnv, type StoreAccess, type StoreEndpoint } from '../role-env.ts';

/** The roles under test, named after their commands (app/cli/commands/roles.ts). */
export const ROLES = ['ingest', 'processors', 'query-api', 'all'] as const;
export type RoleName = (typeof ROLES)[number];

export interface Deployment {
  readonly name: 'split' | 'all';
  readonly broker: BrokerControl;
  readonly kafka: KafkaWatch;
  /** The deployment's store (the store holder's endpoint, or `gex all`'s own). */
  readonly store: Store;
  readonly apiUrl: string;
  readonly apiKey: string;
  /** The roles it runs: each is a process of that name. */
  readonly roles: readonly RoleName[];
  /** The process that publishes the venue events (its /metrics counts them). */
  readonly publisher: RoleName;
  /** The process that computes the snapshots (the group-join outage makes it rejoin). */
  readonly computer: RoleName;
  readonly joiner: string;
  /** Spawns the joiner; resolves once it serves /metrics (rejects if it exits first). */
  startJoiner(): Promise<void>;
}

export interface RoleProcesses {
  readonly sup: Supervisor;
  readonly deployments: readonly Deployment[];
  metricsUrl(name: string): string;
  close(): Promise<void>;
}

export interface RoleProcessOptions {
  readonly root: string;
  readonly workDir: string;
  /** Broker of the split deployment, then of `gex all`. */
  readonly brokers: readonly [BrokerControl, BrokerControl];
  readonly venues: readonly string[];
  /** SYMBOLS of every process (the sandbox serves these). */
  readonly symbols: readonly string[];
  readonly sandboxUrlsFile: string;
}

const CLI = ['--import', 'tsx', 'app/cli/main.ts'];
/** A process's start (tsx, the store, topics, group joins) on a busy 2-core machine. */
const READY_TIMEOUT_MS = 180_000;

export async function startRoleProcesses(o: RoleProcessOptions): Promise<RoleProcesses> {
  const logDir = join(o.workDir, 'logs');
  mkdirSync(logDir, { recursive: true });
  const sup = new Supervisor(o.root, logDir);
  const metrics = new Map<string, number>();
  const metricsUrl = (name: string): string => `http://127.0.0.1:${metrics.get(name) ?? 0}/metrics`;
  const endpoint = async (): Promise<StoreEndpoint> => {
    const port = await freePort();
    return { url: `http://127.0.0.1:${port}`, port, token: randomBytes(16).toString('hex') };
  };
  /** Environment of a process: its broker, data dir, metrics port; it serves `serves` or reads `reads`. */
  const envOf = async (name: string, broker: BrokerControl, store: StoreAccess): Promise<NodeJS.ProcessEnv> => {
    const r = await roleEnv({
      workDir: o.workDir,
      name,
      clientPrefix: 'outage',
      brokers: broker.brokers,
      venues: o.venues,
      symbols: o.symbols,
      store,
      extra: { LOG_FORMAT: 'json' },
    });
    metrics.set(name, r.metricsPort);
    return r.env;
  };
  const spec = (name: string, args: readonly string[], env: NodeJS.ProcessEnv, ready: () => Promise<boolean>): ProcessSpec => ({
    name,
    args,
    env,
    ready,
    readyTimeoutMs: READY_TIMEOUT_MS,
  });
  const metricsReady = (name: string) => () => answers200(metricsUrl(name));
  const apiEnv = async (): Promise<{ port: number; adminPort: number; env: NodeJS.ProcessEnv }> => {
    const port = await freePort();
    const adminPort = await freePort();
    const env = {
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      HEALTH_RATE_LIMIT: '1000000',
      ACCOUNTS_REFRESH_MS: '1000',
    };
    return { port, adminPort, env };
  };
  const ingestEnv = { SANDBOX: 'true', SANDBOX_URLS: o.sandboxUrlsFile, INGEST_START_FILL_MS: '120000' };
  const [brokerA, brokerB] = o.brokers;

  const holder = await endpoint();
  const storeSpec = spec(
    'store',
    ['--import', 'tsx', 'tools/chaos/store-holder.ts'],
    await envOf('store', brokerA, { serves: holder }),
    () => answers200(`${holder.url}/ping`),
  );
  const ingestSpec = spec(
    'ingest',
    [...CLI, 'ingest'],
    { ...(await envOf('ingest', brokerA, { reads: adminLogin(holder) })), ...ingestEnv },
    metricsReady('ingest'),
  );
  const procSpec = spec(
    'processors',
    [...CLI, 'processors'],
    await envOf('processors', brokerA, { reads: adminLogin(holder) }),
    metricsReady('processors'),
  );
  const api = await apiEnv();
  const apiSpec = spec(
    'query-api',
    [...CLI, 'query-api'],
    { ...(await envOf('query-api', brokerA, { reads: adminLogin(holder) })), ...api.env },
    () => answers200(`http://127.0.0.1:${api.port}/v2/health`),
  );
  const joinSplit = spec(
    'processors-join',
    [...CLI, 'processors'],
    await envOf('processors-join', brokerA, { reads: adminLogin(holder) }),
    metricsReady('processors-join'),
  );
  // all: its own store, served on its own endpoint for the comparison.
  const own = await endpoint();
  const allApi = await apiEnv();
  const allSpec = spec('all', [...CLI, 'all'], { ...(await envOf('all', brokerB, { serves: own })), ...allApi.env, ...ingestEnv }, () =>
    answers200(`http://127.0.0.1:${allApi.port}/v2/health`),
  );
  const joinAll = spec(
    'all-join',
    [...CLI, 'processors'],
    await envOf('all-join', brokerB, { reads: adminLogin(own) }),
    metricsReady('all-join'),
  );

  let apiKey: string, allKey: string;
  try {
    // The store holder (it applies the migrations) and `gex all`, then the three roles that use the holder's store.
    await Promise.all([sup.start(storeSpec), sup.start(allSpec)]);
    await Promise.all([sup.start(ingestSpec), sup.start(procSpec), sup.start(apiSpec)]);
    apiKey = await createApiKey(api.adminPort, join(o.workDir, 'query-api'));
    allKey = await createApiKey(allApi.adminPort, join(o.workDir, 'all'));
  } catch (err) {
    await sup.stopAll(); // a start that failed half-way leaves nothing running
    throw err;
  }
  const storeOf = (e: StoreEndpoint): Promise<Store> =>
    createStore({ url: e.url, username: 'admin', password: e.token, dataPath: o.workDir });
  const deployments: Deployment[] = [
    {
      name: 'split',
      broker: brokerA,
      kafka: new KafkaWatch(brokerA.brokers),
      store: await storeOf(holder),
      apiUrl: `http://127.0.0.1:${api.port}`,
      apiKey,
      roles: ['ingest', 'processors', 'query-api'],
      publisher: 'ingest',
      computer: 'processors',
      joiner: joinSplit.name,
      startJoiner: () => sup.start(joinSplit),
    },
    {
      name: 'all',
      broker: brokerB,
      kafka: new KafkaWatch(brokerB.brokers),
      store: await storeOf(own),
      apiUrl: `http://127.0.0.1:${allApi.port}`,
      apiKey: allKey,
      roles: ['all'],
      publisher: 'all',
      computer: 'all',
      joiner: joinAll.name,
      startJoiner: () => sup.start(joinAll),
    },
  ];
  return {
    sup,
    deployments,
    metricsUrl,
    close: async () => {
      for (const d of deployments) {
        await d.kafka.close().catch(() => undefined);
        await d.store.close().catch(() => undefined);
      }
      // Their data is thrown away: SIGKILL all at once (a graceful stop one after another took ~30 s).
      const names = [storeSpec, ingestSpec, procSpec, apiSpec, allSpec, joinSplit, joinAll].map((p) => p.name);
      await Promise.all(names.filter((n) => sup.alive(n)).map((n) => sup.kill(n)));
      await sup.stopAll();
    },
  };
}
