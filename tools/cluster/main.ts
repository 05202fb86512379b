/**
 * `npm run cluster`: the multi-machine topology on this machine, every role in its own process (topology.ts), on a
 * real Kafka broker and a shared store, with Redis for the APIs' shared rate limits. Prints the URLs and an API key,
 * and runs until Ctrl-C (SIGINT/SIGTERM), then stops every process it started (roles first, then store, Redis, broker).
 *
 *   npm run cluster -- [--apis N] [--processors M] [--ingests K] [--sandbox] [--brokers H:P,...] [--redis URL]
 *                      [--clickhouse-url URL] [--venues a,b] [--snapshot-interval-ms MS] [--work-dir DIR]
 *
 *   --apis             `gex query-api` replicas (default 2), each on its own port, counters shared through Redis
 *   --processors       `gex processors` instances in the consumer groups raw-writer and gex-snapshots (default 2)
 *   --ingests          `gex ingest` processes, the venues dealt between them (default 1)
 *   --sandbox          ingest fed by the sandbox market (each ingest process starts one for its venues), as `gex demo`
 *   --brokers          use these Kafka brokers; default: its own broker (ops/kafka/start.sh) on free ports
 *   --redis            use this Redis; default: its own redis-server on a free port
 *   --clickhouse-url   a ClickHouse server (CLICKHOUSE_USER / CLICKHOUSE_PASSWORD from the environment); default: a
 *                      store holder serving the embedded store over its ClickHouse-compatible HTTP endpoint
 * Logs: <work-dir>/logs/<process>.log (default work dir .tmp/cluster/run, emptied at start).
 */
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { splitArgs } from '#platform/settings.ts';
import { VENUES } from '#schemas/events.ts';
import { startPrivateBroker, type BrokerControl } from '../chaos/kafka-broker.ts';
import { Supervisor } from '../chaos/supervisor.ts';
import { freePort } from '../free-port.ts';
import { startRedisServer, type RedisServer } from './redis.ts';
import { describeTopology } from './describe.ts';

// This process's own logs (the store client's) stay quiet; the roles log at info into their files (topology.ts).
process.env['LOG_LEVEL'] ??= 'warn';
const { startTopology } = await import('./topology.ts');

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { flags } = splitArgs(process.argv.slice(2));
const count = (flag: string, dflt: number): number => {
  const v = Number(flags.get(flag) ?? dflt);
  if (!Number.isInteger(v) || v < 1) throw new Error(`--${flag} must be a positive integer`);
  return v;
};
const apis = count('apis', 2);
const processors = count('processors', 2);
const ingests = count('ingests', 1);
const venues = (flags.get('venues') ?? VENUES.join(',')).split(',').filter((v) => v.length > 0);
const interval = flags.get('snapshot-interval-ms');
const workDir = resolve(flags.get('work-dir') ?? join(root, '.tmp/cluster/run'));
rmSync(workDir, { recursive: true, force: true });
mkdirSync(join(workDir, 'logs'), { recursive: true });
const say = (line: string): void => void process.stderr.write(`[cluster] ${line}\n`);

let broker: BrokerControl | null = null;
let redis: RedisServer | null = null;
// Created here so that Ctrl-C during the start stops what has started so far.
const supervisor = new Supervisor(root, join(workDir, 'logs'));
let stopping: Promise<void> | null = null;
const stopAll = (): Promise<void> =>
  (stopping ??= (async () => {
    say('stopping every process (roles, store, Redis, broker)');
    await supervisor.stopAll();
    await redis?.stop();
    broker?.stop();
  })());

for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    void stopAll().then(() => process.exit(0));
  });

try {
  let brokers = (flags.get('brokers') ?? '').split(',').filter((b) => b.length > 0);
  if (brokers.length === 0) {
    const [port, controller] = [await freePort(), await freePort()];
    say(`starting its own Kafka broker on 127.0.0.1:${port} (ops/kafka/start.sh)`);
    broker = startPrivateBroker(root, join(root, '.tmp/cluster/kafka'), port, controller);
    brokers = [...broker.brokers];
  }
  const redisUrl = flags.get('redis') ?? (redis = await startRedisServer(join(workDir, 'logs'))).url;
  const chUrl = flags.get('clickhouse-url');
  say(`starting ${processors} processors, ${apis} APIs and ${ingests} ingest process(es) (logs: ${join(workDir, 'logs')})`);
  const topology = await startTopology({
    root,
    workDir,
    brokers,
    redisUrl,
    apis,
    processors,
    ingests,
    venues,
    sandbox: flags.has('sandbox'),
    supervisor,
    ...(chUrl !== undefined
      ? { store: { url: chUrl, user: process.env['CLICKHOUSE_USER'] ?? 'default', password: process.env['CLICKHOUSE_PASSWORD'] ?? '' } }
      : {}),
    ...(interval !== undefined ? { snapshotIntervalMs: Number(interval) } : {}),
    accountsRefreshMs: 2000,
  });
  const key = await topology.createKey('cluster', 'bundle_monthly');
  process.stdout.write(describeTopology(topology, { brokers, redisUrl, key, workDir }));
} catch (err) {
  say(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  await stopAll();
  process.exit(1);
}
