/**
 * The ingest role on its own worker thread (ingest/thread), against the sandbox market in its own process
 * (flood-sandbox.ts) and a real in-process bus: every option trade the sandbox wrote to a socket reaches the bus
 * exactly once, a stalled bus holds the thread's connectors back (backpressure crosses the thread), the thread's
 * metrics are served with this thread's (processMetrics), and stop ends the thread.
 */
import { test } from 'node:test';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { MemoryBus } from '#bus/memory-bus.ts';
import { ensureProductTopics } from '#bus/topics.ts';
import type { MarketSymbol } from '#schemas/events.ts';
import { METRIC } from '#platform/metrics/names.ts';
import { processMetrics } from '#platform/metrics/registry.ts';
import { SANDBOX_VENUES } from '#sandbox/market/venues.ts';
import { startIngestThread } from '#ingest/thread/start-ingest-thread.ts';
import { waitFor } from '#sandbox/harness/ledger-check.ts';
import { forkSandboxProcess } from '#sandbox/harness/sandbox-process.ts';
import { StallableBus, collectOptionTrades, sandboxConnectorUrls } from './flood-ingest.ts';

const SYMBOLS: readonly MarketSymbol[] = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'HYPEUSDT'];
const HIGH_WATER_MARK = 2_000;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Sum of a metric's samples (optionally of one sample name, e.g. a histogram's _count) in the process's metrics. */
async function metricSum(name: string, sample = name): Promise<number> {
  const m = (await processMetrics()).getSingleMetric(name);
  if (m === undefined) return 0;
  const values = (await m.get()).values as readonly { value: number; metricName?: string }[];
  return values.filter((v) => (v.metricName ?? name) === sample).reduce((n, v) => n + v.value, 0);
}

test(
  'ingest on its own thread: every written trade on the bus once, backpressure across the thread, merged metrics',
  { timeout: 180_000 },
  async () => {
    const sandbox = await forkSandboxProcess(new URL('./flood-sandbox.ts', import.meta.url));
    const bus = new StallableBus({ clientId: 'ingest-thread' });
    const dir = mkdtempSync(join(tmpdir(), 'ingest-thread-'));
    const cpuProfile = join(dir, 'ingest.cpuprofile');
    try {
      await ensureProductTopics(bus, 3);
      const collector = await collectOptionTrades(bus, 'ingest-thread-collector');
      const urls = sandboxConnectorUrls(sandbox.ready);
      const ingest = await startIngestThread(bus, {
        venues: SANDBOX_VENUES,
        symbols: SYMBOLS,
        urls,
        publisher: { highWaterMark: HIGH_WATER_MARK },
        cpuProfile,
      });
      let stopped = false;
      try {
        assert.deepEqual([...ingest.venues].sort(), [...SANDBOX_VENUES].sort());
        await waitFor(
          'every planned connection open',
          async () => (await ingest.connections()).every((c) => c.open === c.planned && c.planned > 0),
          20_000,
          100,
        );
        // A flood through a running bus, then through a stalled one: the thread's connectors must pause reading.
        await sandbox.ask({ cmd: 'flood', perVenue: 20, everyMs: 100 });
        await sleep(2_000);
        bus.stall();
        await sleep(6_000);
        const pausesWhileStalled = await metricSum(METRIC.ingestReadPauses);
        const backlogWhileStalled = await metricSum(METRIC.ingestPublishBacklog);
        const delivered = Number((await sandbox.ask({ cmd: 'calm' }))['delivered']);
        bus.recover();
        await waitFor('every delivered trade on the bus', () => collector.count() >= delivered, 60_000, 100);
        await ingest.flush();
        await sleep(300);
        const ledger = (await sandbox.ask({ cmd: 'ledger' }))['ids'] as Record<string, string[]>;
        const { missing, extra } = collector.compare(ledger);
        assert.ok(delivered > 5_000, `the sandbox flooded (${delivered} option trades written)`);
        assert.deepEqual({ missing: missing.slice(0, 5), extra: extra.slice(0, 5) }, { missing: [], extra: [] });
        assert.equal(collector.count(), delivered, 'every written trade on the bus exactly once');

        assert.ok(pausesWhileStalled > 0, 'the connectors on the thread paused their sockets while the bus was stalled');
        assert.ok(backlogWhileStalled >= HIGH_WATER_MARK, `the thread's publisher held its high-water mark (${backlogWhileStalled})`);
        // The thread's counters are served with this thread's: events published by type, and the venue lag per trade.
        const published = await metricSum(METRIC.ingestEvents);
        assert.ok(published >= delivered, `gex_ingest_events_total (${published}) counts at least the option trades (${delivered})`);
        const lagCount = await metricSum(METRIC.ingestVenueLag, `${METRIC.ingestVenueLag}_count`);
        assert.ok(lagCount >= delivered, `the venue-lag histogram counted every trade (${lagCount} >= ${delivered})`);
        // Process metrics come from this thread only (the worker does not collect them a second time).
        const text = await (await processMetrics()).metrics();
        assert.equal(text.match(/^process_cpu_seconds_total\{/gm)?.length, 1, 'one process_cpu_seconds_total series');

        stopped = true;
        await ingest.stop();
        await assert.rejects(ingest.connections(), /stopped/, 'the thread is gone after stop');
        assert.equal(await metricSum(METRIC.ingestVenueLag, `${METRIC.ingestVenueLag}_count`), 0, 'its metrics left /metrics');
        // The thread's CPU profile (cpuProfile) was written as it stopped, and shows the connectors at work.
        const profiled = JSON.parse(readFileSync(cpuProfile, 'utf8')) as {
          nodes: { callFrame: { functionName: string } }[];
          samples: number[];
        };
        assert.ok(profiled.samples.length > 0);
        assert.ok(
          profiled.nodes.some((n) => n.callFrame.functionName === 'parseDeribitFrame'),
          "the profile holds the thread's parsers",
        );
      } finally {
        if (!stopped) await ingest.stop();
        await collector.stop();
      }
    } finally {
      bus.recover();
      await bus.close();
      await sandbox.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test('an ingest thread that cannot start rejects with its reason and leaves no thread behind', { timeout: 60_000 }, async (t) => {
  // The spool directory is a file: the thread's startIngest fails on it.
  const dir = mkdtempSync(join(tmpdir(), 'gex-ingest-thread-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'not-a-directory');
  writeFileSync(file, '');
  const bus = new MemoryBus({ clientId: 'ingest-thread-fail' });
  let failures = 0;
  try {
    await assert.rejects(
      startIngestThread(
        bus,
        { venues: [], symbols: SYMBOLS, spool: { dir: join(file, 'spool'), maxBytes: 1 << 20 } },
        { onFailure: () => failures++ },
      ),
      /the ingest thread did not start: .*ENOTDIR/s,
    );
    await sleep(200);
    assert.equal(failures, 0, 'a start failure is the rejection, not a later thread failure');
  } finally {
    await bus.close();
  }
});
