import type { Worker } from 'node:worker_threads';
import type { Bus } from '#bus/types.ts';
import { childLogger } from '#platform/log.ts';
import { addThreadMetrics } from '#platform/metrics/registry.ts';
import { startTsWorker } from '#platform/threads/ts-worker.ts';
import type { IngestOptions } from '../pipeline/run-ingest.ts';
import { unpackMessages, type OwnerMessage, type ThreadRequest, type VenueConnections } from './protocol.ts';

/** What the ingest thread is started with: the ingest options that cross a thread (no bus, no callbacks). */
export type IngestThreadOptions = Omit<IngestOptions, 'bus' | 'onSocketEvent'> & {
  /**
   * Profile the thread's CPU from its start and write the profile (a `.cpuprofile`) to this path when it stops: for
   * benchmarks and investigations (platform/threads/cpu-profile.ts; `node --cpu-prof` writes none for this thread).
   */
  readonly cpuProfile?: string;
};

export interface RunningIngestThread {
  /** The venues whose connector started. */
  readonly venues: readonly string[];
  /** Open and planned sockets per venue. */
  connections(): Promise<readonly VenueConnections[]>;
  /** Publish everything the thread holds. */
  flush(): Promise<void>;
  /** Stops the connectors, publishes what they hold, ends the thread. */
  stop(): Promise<void>;
}

export interface IngestThreadHooks {
  /**
   * The thread ended by itself (an uncaught error in it, or it exited): by default the error is thrown on this
   * thread, where the role's policy (app/runtime/signals.ts) logs it and exits so a supervisor restarts the process.
   */
  readonly onFailure?: (err: Error) => void;
}

/**
 * The ingest role on its own thread: the connectors (sockets, parsing, dedup, Avro encoding) run on a second core
 * while this thread's event loop keeps the bus, the raw writer, the snapshots and the API. Every publish crosses as
 * one packed batch (protocol.ts) and is acknowledged when `bus` took it, so the publisher's backpressure and retry
 * work as in one thread. The thread's metrics are merged into this process's /metrics (addThreadMetrics).
 */
export async function startIngestThread(bus: Bus, opts: IngestThreadOptions, hooks: IngestThreadHooks = {}): Promise<RunningIngestThread> {
  const log = childLogger('ingest.thread');
  const worker: Worker = startTsWorker(new URL('./worker.ts', import.meta.url), opts, 'gex-ingest');
  const waiting = new Map<number, { resolve(m: ThreadRequest): void; reject(err: Error): void }>();
  let nextId = 1;
  let ended: Error | null = null;
  let stopping = false;
  const ask = <K extends ThreadRequest['kind']>(
    kind: 'collect-metrics' | 'status' | 'flush' | 'stop',
  ): Promise<Extract<ThreadRequest, { kind: K }>> =>
    new Promise((resolve, reject) => {
      if (ended !== null) return reject(ended);
      const id = nextId++;
      waiting.set(id, { resolve: resolve as (m: ThreadRequest) => void, reject });
      worker.postMessage({ kind, id } satisfies OwnerMessage);
    });
  const send = (m: OwnerMessage): void => worker.postMessage(m);

  let onStarted: (r: ThreadRequest) => void = () => undefined;
  const started = new Promise<ThreadRequest>((resolve) => (onStarted = resolve));
  worker.on('message', (m: ThreadRequest) => {
    switch (m.kind) {
      case 'publish':
        bus.publish(m.topic, unpackMessages(m.packed)).then(
          () => send({ kind: 'published', id: m.id }),
          (err: unknown) => send({ kind: 'published', id: m.id, error: err instanceof Error ? err.message : String(err) }),
        );
        return;
      case 'started':
      case 'start-failed':
        onStarted(m);
        return;
      default: {
        const w = waiting.get(m.id);
        waiting.delete(m.id);
        w?.resolve(m);
      }
    }
  });
  const fail =
    hooks.onFailure ??
    ((err: Error) =>
      process.nextTick(() => {
        throw err;
      }));
  const end = (err: Error): void => {
    if (ended !== null) return;
    ended = err;
    for (const w of waiting.values()) w.reject(err);
    waiting.clear();
    onStarted({ kind: 'start-failed', error: err.message });
  };
  worker.on('error', (err) => {
    end(err);
    if (stopping) return;
    log.error({ err }, 'the ingest thread failed');
    fail(err);
  });
  worker.on('exit', (code) => {
    const err = new Error(`the ingest thread exited (code ${code})`);
    const unexpected = !stopping && ended === null;
    end(stopping ? new Error('the ingest thread was stopped') : err);
    if (!unexpected) return;
    log.error({ code }, err.message);
    fail(err);
  });

  const first = await started;
  if (first.kind === 'start-failed') {
    stopping = true;
    await worker.terminate();
    throw new Error(`the ingest thread did not start: ${first.error}`);
  }
  const removeMetrics = addThreadMetrics(async () => (await ask<'metrics'>('collect-metrics')).metrics);
  const done = async (kind: 'flush' | 'stop'): Promise<void> => {
    const r = await ask<'done'>(kind);
    if (r.error !== undefined) throw new Error(`ingest thread ${kind}: ${r.error}`);
  };
  return {
    venues: first.kind === 'started' ? first.venues : [],
    connections: async () => (await ask<'status'>('status')).venues,
    flush: () => done('flush'),
    stop: async () => {
      if (stopping) return;
      stopping = true;
      removeMetrics();
      try {
        await done('stop');
      } finally {
        await worker.terminate();
        end(new Error('the ingest thread was stopped'));
      }
    },
  };
}
