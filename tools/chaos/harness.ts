/**
 * The chaos run: sandbox process + the product's processes (cluster.ts) + the API poller, the chosen scenarios in
 * order, everything stopped at the end (also on failure). Shared by main.ts and chaos.kafka.test.ts.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { forkSandboxProcess, type SandboxProcess } from '#sandbox/harness/sandbox-process.ts';
import { startCluster, type Cluster } from './cluster.ts';
import { ApiPoller } from './api-poller.ts';
import type { BrokerControl } from './kafka-broker.ts';
import { runScenario, type ScenarioDef, type ScenarioRow } from './run-scenario.ts';

/**
 * Venues whose option trades a REST fill recovers whole after an ingest restart under the flood (ingest/README.md
 * "Gap fill"): Deribit (time range, paginated) and Bybit (latest 1,000 per coin). OKX is left out: its endpoint gives
 * the latest 100 option trades per family, fewer than a restarted ingest misses at this rate. The sandbox serves
 * these venues only, so every trade offered is a recoverable one.
 */
export const RECOVERABLE_VENUES = ['deribit', 'bybit'] as const;
export const VENUE_NOTE =
  'flood and comparison on deribit, bybit only (their REST recent trades recover an ingest restart whole; okx keeps only the latest 100 per family)';

export interface ChaosOptions {
  readonly root: string;
  readonly workDir: string;
  readonly brokers: readonly string[];
  readonly broker: BrokerControl | null;
  readonly scenarios: readonly ScenarioDef[];
  readonly floodSeconds: number;
  /** When each scenario's fault is injected, as a fraction of its flood (default 0.3). */
  readonly faultAt?: number;
  readonly perVenue: number;
  readonly everyMs: number;
  readonly storeDownSeconds: number;
  readonly onRow?: (row: ScenarioRow) => void;
  readonly log?: (line: string) => void;
}

export async function runChaos(o: ChaosOptions): Promise<ScenarioRow[]> {
  mkdirSync(o.workDir, { recursive: true });
  const log = o.log ?? ((): void => undefined);
  const urlsFile = join(o.workDir, 'sandbox-urls.json');
  let sandbox: SandboxProcess | null = null;
  let cluster: Cluster | null = null;
  let poller: ApiPoller | null = null;
  try {
    sandbox = await forkSandboxProcess(new URL('./sandbox-child.ts', import.meta.url), [], [urlsFile, RECOVERABLE_VENUES.join(',')]);
    log(`sandbox up (${RECOVERABLE_VENUES.join(', ')}); starting the processes (logs: ${join(o.workDir, 'logs')})`);
    cluster = await startCluster({
      root: o.root,
      workDir: o.workDir,
      brokers: o.brokers,
      venues: RECOVERABLE_VENUES,
      sandboxUrlsFile: urlsFile,
      startFillMs: 120_000,
    });
    poller = new ApiPoller(cluster.apiUrls, cluster.apiKey);
    poller.start();
    const env = {
      cluster,
      sandbox,
      poller,
      broker: o.broker,
      floodMs: o.floodSeconds * 1000,
      faultAt: o.faultAt ?? 0.3,
      perVenue: o.perVenue,
      everyMs: o.everyMs,
      storeDownMs: o.storeDownSeconds * 1000,
      venues: RECOVERABLE_VENUES,
    };
    const rows: ScenarioRow[] = [];
    for (const def of o.scenarios) {
      log(`scenario ${def.id}: ${def.name}`);
      const row = await runScenario(def, env);
      rows.push(row);
      o.onRow?.(row);
    }
    return rows;
  } finally {
    poller?.stop();
    await cluster?.close();
    await sandbox?.stop();
  }
}
