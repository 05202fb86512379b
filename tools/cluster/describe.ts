/** What `npm run cluster` prints once every process serves: the URLs, the API key and where the logs are. */
import { join } from 'node:path';
import type { Topology } from './topology.ts';

export interface Described {
  readonly brokers: readonly string[];
  readonly redisUrl: string;
  readonly key: string;
  readonly workDir: string;
}

export function describeTopology(t: Topology, d: Described): string {
  const pids = (name: string): string => `pid ${t.sup.pid(name)}`;
  const lines = [
    '',
    `GEX cluster is running: ${t.apis.length} query-api, ${t.processors.length} processors, ${t.ingests.length} ingest`,
    ...t.apis.map((a) => `  ${a.name.padEnd(14)} ${a.url}/v2  (docs ${a.url}/v2/docs, ${pids(a.name)})`),
    `API key (user cluster, plan bundle_monthly = pro; counted once across the replicas through Redis): ${d.key}`,
    `  curl -H 'X-API-Key: ${d.key}' '${t.apis[0]?.url ?? ''}/v2/gex/levels?symbol=BTCUSDT'`,
    `SQL (read-only user; admin ${t.clickhouse.user === 'admin' ? 'writes with the store token' : 'is CLICKHOUSE_USER'}): ${t.clickhouse.url}`,
    `  curl '${t.clickhouse.url}/?query=SELECT+count()+FROM+option_trades'`,
    `  CLICKHOUSE_URL=${t.clickhouse.url} npx gex sql "SELECT symbol, max(computed_at) FROM gex_levels GROUP BY symbol"`,
    'Metrics:',
    ...[...t.metrics].map(([name, url]) => `  ${name.padEnd(14)} ${url}${t.sup.alive(name) ? '' : ' (not running)'}`),
    `Kafka: ${d.brokers.join(',')}   Redis: ${d.redisUrl}`,
    `Logs: ${join(d.workDir, 'logs')}/<process>.log   Ctrl-C stops everything.`,
    '',
  ];
  return `${lines.join('\n')}\n`;
}
