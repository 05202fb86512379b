/**
 * Entry of the ingest thread (start-ingest-thread.ts): runs the ingest role (startIngest) with a PortBus, and
 * answers its owner's requests (publish acknowledgements, metrics, flush, stop).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { metricsRegistry } from '#platform/metrics/registry.ts';
import { startCpuProfile } from '#platform/threads/cpu-profile.ts';
import { startIngest, type RunningIngest } from '../pipeline/run-ingest.ts';
import { PortBus } from './port-bus.ts';
import type { IngestThreadOptions } from './start-ingest-thread.ts';
import type { OwnerMessage, ThreadRequest } from './protocol.ts';

const port = parentPort;
if (port === null) throw new Error('ingest/thread/worker.ts runs as a worker thread');
const { cpuProfile, ...opts } = workerData as IngestThreadOptions;
const profile = cpuProfile === undefined ? null : await startCpuProfile(cpuProfile);
const bus = new PortBus(port);
const post = (m: ThreadRequest): void => port.postMessage(m);
let ingest: RunningIngest | null = null;

async function answer(id: number, work: () => Promise<void>): Promise<void> {
  try {
    await work();
    post({ kind: 'done', id });
  } catch (err) {
    post({ kind: 'done', id, error: err instanceof Error ? err.message : String(err) });
  }
}

port.on('message', (m: OwnerMessage) => {
  switch (m.kind) {
    case 'published':
      bus.settle(m.id, m.error);
      return;
    case 'collect-metrics':
      void metricsRegistry.getMetricsAsJSON().then(
        (metrics) => post({ kind: 'metrics', id: m.id, metrics }),
        () => post({ kind: 'metrics', id: m.id, metrics: [] }),
      );
      return;
    case 'status':
      post({ kind: 'status', id: m.id, venues: (ingest?.venues ?? []).map((v) => ({ venue: v.venue, ...v.connections() })) });
      return;
    case 'flush':
      void answer(m.id, async () => ingest?.flush());
      return;
    case 'stop':
      void answer(m.id, async () => {
        try {
          await ingest?.stop();
          await bus.close();
        } finally {
          await profile?.stop();
        }
      }).then(() => port.close());
      return;
  }
});

try {
  ingest = await startIngest({ ...opts, bus });
  post({ kind: 'started', venues: ingest.venues.map((v) => v.venue) });
} catch (err) {
  post({ kind: 'start-failed', error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
}
