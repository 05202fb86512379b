/**
 * The product as separate processes, the way the chaos harness runs it: a store holder serving the embedded store
 * over the ClickHouse-compatible endpoint, `gex ingest` fed by the sandbox process (SANDBOX_URLS), two
 * `gex processors` in one consumer group, two `gex query-api`; each with its own environment and log file.
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createStore, type Store } from '#clickhouse/store.ts';
import { adminLogin, roleEnv } from './role-env.ts';
import { Supervisor, type ProcessSpec } from './supervisor.ts';
import { answers200, freePort } from './ports.ts';
import { KafkaWatch } from './kafka-watch.ts';

export const PROCS = { store: 'store', ingest: 'ingest', procA: 'process-a', procB: 'process-b', api1: 'api-1', api2: 'api-2' } as const;
export type ProcName = (typeof PROCS)[keyof typeof PROCS];

export interface ClusterOptions {
  readonly root: string;
  readonly workDir: string;
  readonly brokers: readonly string[];
  readonly venues: readonly string[];
  /** The sandbox process's URLs file (SANDBOX_URLS). */
  readonly sandboxUrlsFile: string;
  /** INGEST_START_FILL_MS of the ingest process. */
  readonly startFillMs: number;
}

export interface Cluster {
  readonly sup: Supervisor;
  readonly store: Store;
  readonly kafka: KafkaWatch;
  readonly apiUrls: readonly string[];
  readonly apiKey: string;
  /** URL of a process's /metrics. */
  metricsUrl(name: ProcName): string;
  close(): Promise<void>;
}

const CLI = ['--import', 'tsx', 'app/cli/main.ts'];

export async function startCluster(o: ClusterOptions): Promise<Cluster> {
  const logDir = join(o.workDir, 'logs');
  mkdirSync(logDir, { recursive: true });
  const sup = new Supervisor(o.root, logDir);
  const token = randomBytes(16).toString('hex');
  const chPort = await freePort();
  const chUrl = `http://127.0.0.1:${chPort}`;
  const metrics = new Map<ProcName, number>();
  const endpoint = { url: chUrl, port: chPort, token };
  const base = async (name: ProcName): Promise<NodeJS.ProcessEnv> => {
    const store = name === PROCS.store ? { serves: endpoint } : { reads: adminLogin(endpoint) };
    const { env, metricsPort } = await roleEnv({
      workDir: o.workDir,
      name,
      clientPrefix: 'chaos',
      brokers: o.brokers,
      venues: o.venues,
      store,
    });
    metrics.set(name, metricsPort);
    return env;
  };
  const metricsReady = (name: ProcName) => () => answers200(`http://127.0.0.1:${metrics.get(name) ?? 0}/metrics`);
  const kafka = new KafkaWatch(o.brokers);
  const apiPorts: number[] = [];
  const specs: ProcessSpec[] = [];
  specs.push({
    name: PROCS.store,
    args: ['--import', 'tsx', 'tools/chaos/store-holder.ts'],
    env: await base(PROCS.store),
    ready: () => answers200(`${chUrl}/ping`),
  });
  for (const name of [PROCS.procA, PROCS.procB])
    specs.push({ name, args: [...CLI, 'processors'], env: await base(name), ready: metricsReady(name) });
  const adminPorts: number[] = [];
  for (const name of [PROCS.api1, PROCS.api2]) {
    const port = await freePort();
    const adminPort = await freePort();
    apiPorts.push(port);
    adminPorts.push(adminPort);
    const env = {
      ...(await base(name)),
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      HEALTH_RATE_LIMIT: '1000000',
      ACCOUNTS_REFRESH_MS: '1000',
    };
    specs.push({ name, args: [...CLI, 'query-api'], env, ready: () => answers200(`http://127.0.0.1:${port}/v2/health`) });
  }
  const ingestEnv = {
    ...(await base(PROCS.ingest)),
    SANDBOX: 'true',
    SANDBOX_URLS: o.sandboxUrlsFile,
    INGEST_START_FILL_MS: String(o.startFillMs),
  };
  specs.push({ name: PROCS.ingest, args: [...CLI, 'ingest'], env: ingestEnv, ready: metricsReady(PROCS.ingest) });

  // The store holder first (it applies the migrations), then the others two at a time (2 cores).
  await sup.start(specs[0] as ProcessSpec);
  const rest = specs.slice(1);
  for (let i = 0; i < rest.length; i += 2) await Promise.all(rest.slice(i, i + 2).map((s) => sup.start(s)));
  const store = await createStore({ url: chUrl, username: 'admin', password: token, dataPath: o.workDir });
  const apiKey = await createApiKey(o.root, specs[3]?.env ?? {});
  const apiUrls = apiPorts.map((p) => `http://127.0.0.1:${p}`);
  return {
    sup,
    store,
    kafka,
    apiUrls,
    apiKey,
    metricsUrl: (name) => `http://127.0.0.1:${metrics.get(name) ?? 0}/metrics`,
    close: async () => {
      await kafka.close().catch(() => undefined);
      await store.close().catch(() => undefined);
      await sup.stopAll();
    },
  };
}

/** An enterprise user and key through the product's CLI (`gex users upsert`, `gex keys create`, via API 1's admin port). */
async function createApiKey(root: string, env: NodeJS.ProcessEnv): Promise<string> {
  await runCli(root, env, ['users', 'upsert', 'chaos', '--plan', 'enterprise', '--status', 'active']);
  const out = await runCli(root, env, ['keys', 'create', '--user', 'chaos']);
  const key = out.trim().split('\n').pop() ?? '';
  if (key.length < 10) throw new Error(`gex keys create printed no key: ${out}`);
  return key;
}

function runCli(root: string, env: NodeJS.ProcessEnv, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...CLI, ...args], {
      cwd: root,
      env: { ...env, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.once('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`gex ${args.join(' ')} exited ${code}: ${err.slice(-500)}`)),
    );
  });
}
