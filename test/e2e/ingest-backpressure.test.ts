/**
 * Ingest honours backpressure: a stalled bus under a sandbox flood. The sandbox market runs in its own process
 * (flood-sandbox.ts) and floods every venue with option trades; the real connectors (startIngest) publish onto an
 * in-process bus whose publishes block until released. With backpressure the connectors stop reading their
 * sockets once the publisher is above its high-water mark, so this process's heap stays bounded however long the
 * stall lasts; after the release every trade the sandbox wrote to a socket reaches the bus (ledger comparison).
 * The control run ignores backpressure (an infinite high-water mark): its heap grows with the flood.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ensureProductTopics } from '#bus/topics.ts';
import type { MarketSymbol, Venue } from '#schemas/events.ts';
import type { SocketEvent } from '#ingest/transport/resilient-socket.ts';
import { SANDBOX_VENUES } from '#sandbox/market/venues.ts';
import { startIngest } from '#ingest/pipeline/run-ingest.ts';
import { StallableBus, collectOptionTrades, sandboxConnectorUrls } from './flood-ingest.ts';
import { waitFor } from '#sandbox/harness/ledger-check.ts';
import { forkSandboxProcess } from '#sandbox/harness/sandbox-process.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const SYMBOLS: readonly MarketSymbol[] = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'HYPEUSDT'];
/** The flood: 20 option trades per venue every 100 ms (10 venues: 2,000 trades/s). */
const FLOOD = { perVenue: 20, everyMs: 100 };
const HIGH_WATER_MARK = 2_000;
const STALL_MS = 30_000;
const CONTROL_STALL_MS = 12_000;
/**
 * Stated bound: growth of heapUsed + external (the encoded Avro bodies are Buffers) after forced GC, over the 30 s
 * stall with backpressure. What may be held: the publisher's high-water mark (2,000 messages, ~350 B each with
 * their buffers) plus, per socket, the frames already read when it paused (one 64 KB read each, ~25 sockets).
 * Measured on the 2-core build machine: 1.0 MB over the 30 s stall (64,400 trades flooded); the control grew 9.8 MB
 * in 12 s (27,800 trades), ~0.8 MB per second of stall.
 */
const HEAP_BOUND_MB = 6;

const MB = 1024 * 1024;
function heap(): { heapUsed: number; external: number } {
  gc();
  gc();
  const m = process.memoryUsage();
  return { heapUsed: m.heapUsed / MB, external: m.external / MB };
}
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const round = (x: number): number => Math.round(x * 10) / 10;

interface StallRun {
  /** Largest growth of heapUsed, of external, and of their sum over the stall, MB (every 2 s after forced GC). */
  readonly heapGrowthMb: number;
  readonly externalGrowthMb: number;
  readonly totalGrowthMb: number;
  readonly delivered: number;
  readonly onBus: number;
  readonly missing: readonly string[];
  readonly extra: readonly string[];
  readonly pauses: number;
  readonly stales: number;
}

/** Connectors against the flooding sandbox; the bus stalls for `stallMs`, then recovers; the ledger is compared. */
async function stallUnderFlood(highWaterMark: number, stallMs: number): Promise<StallRun> {
  const sandbox = await forkSandboxProcess(new URL('./flood-sandbox.ts', import.meta.url));
  const bus = new StallableBus({ clientId: 'backpressure' });
  let pauses = 0;
  let stales = 0;
  const onSocketEvent = (_v: Venue, _c: string, e: SocketEvent): void => {
    if (e.type === 'read_paused') pauses++;
    if (e.type === 'stale') stales++;
  };
  try {
    await ensureProductTopics(bus, 3);
    const collector = await collectOptionTrades(bus, 'backpressure-collector');
    const urls = sandboxConnectorUrls(sandbox.ready);
    const ingest = await startIngest({ bus, venues: SANDBOX_VENUES, symbols: SYMBOLS, urls, publisher: { highWaterMark }, onSocketEvent });
    try {
      await waitFor(
        'every planned connection open',
        () =>
          ingest.venues.length === SANDBOX_VENUES.length && ingest.venues.every((v) => v.connections().open === v.connections().planned),
        20_000,
      );
      await sandbox.ask({ cmd: 'flood', ...FLOOD });
      await sleep(1_000); // the flood flows through while the bus is up
      bus.stall();
      const base = heap();
      let heapGrowthMb = 0;
      let externalGrowthMb = 0;
      let totalGrowthMb = 0;
      for (let t = 0; t < stallMs; t += 2_000) {
        await sleep(2_000);
        const h = heap();
        heapGrowthMb = Math.max(heapGrowthMb, h.heapUsed - base.heapUsed);
        externalGrowthMb = Math.max(externalGrowthMb, h.external - base.external);
        totalGrowthMb = Math.max(totalGrowthMb, h.heapUsed + h.external - base.heapUsed - base.external);
      }
      const delivered = Number((await sandbox.ask({ cmd: 'calm' }))['delivered']);
      bus.recover();
      await waitFor('every delivered trade on the bus', () => collector.count() >= delivered, 90_000, 100);
      await sleep(300); // nothing more (no doubles) arrives
      const ledger = (await sandbox.ask({ cmd: 'ledger' }))['ids'] as Record<string, string[]>;
      const { missing, extra } = collector.compare(ledger);
      return {
        heapGrowthMb: round(heapGrowthMb),
        externalGrowthMb: round(externalGrowthMb),
        totalGrowthMb: round(totalGrowthMb),
        delivered,
        onBus: collector.count(),
        missing,
        extra,
        pauses,
        stales,
      };
    } finally {
      await ingest.stop();
      await collector.stop();
    }
  } finally {
    bus.recover();
    await bus.close();
    await sandbox.stop();
  }
}

test(
  'a stalled bus under a sandbox flood: connectors pause their sockets, the heap stays bounded, nothing is lost',
  { timeout: 240_000 },
  async () => {
    const paused = await stallUnderFlood(HIGH_WATER_MARK, STALL_MS);
    const control = await stallUnderFlood(Number.POSITIVE_INFINITY, CONTROL_STALL_MS);
    console.log(
      JSON.stringify({
        flood: FLOOD,
        highWaterMark: HIGH_WATER_MARK,
        boundMb: HEAP_BOUND_MB,
        paused: { ...paused, missing: paused.missing.length, extra: paused.extra.length },
        control: { ...control, missing: control.missing.length, extra: control.extra.length },
      }),
    );
    assert.ok(paused.pauses > 0, 'the connectors paused their sockets');
    assert.equal(paused.stales, 0, 'no stale reconnect fired while paused by us');
    assert.ok(
      paused.totalGrowthMb < HEAP_BOUND_MB,
      `heap + buffers grew ${paused.totalGrowthMb} MB over a ${STALL_MS / 1000} s stall (bound ${HEAP_BOUND_MB} MB)`,
    );
    assert.ok(paused.delivered > 30_000, `the sandbox flooded (${paused.delivered} trades written)`);
    assert.deepEqual({ missing: paused.missing.slice(0, 5), extra: paused.extra.slice(0, 5) }, { missing: [], extra: [] });
    assert.equal(paused.onBus, paused.delivered, 'every written trade on the bus exactly once');
    // The control (no backpressure) buffers the flood in this process: it grows with the stall, in less than half the time.
    assert.equal(control.pauses, 0);
    assert.ok(control.totalGrowthMb > 3 * paused.totalGrowthMb, `control ${control.totalGrowthMb} MB vs paused ${paused.totalGrowthMb} MB`);
    assert.deepEqual({ missing: control.missing.length, extra: control.extra.length }, { missing: 0, extra: 0 });
  },
);
