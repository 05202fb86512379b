/**
 * Child process of restart.test.ts: owns the chDB data dir and runs raw writer + snapshot processor on an
 * in-process bus fed by the deterministic generator.
 *   node --import tsx restart-child.ts <dataPath> <intervalMs> <stopAfterLiveCycles|0>
 * On start it re-publishes the steps after the last stored trade (what a durable feed would still hold), then
 * publishes a step every STEP_MS with the current time. Prints one line per cycle: `cycle <kind> <tick> <detail>`.
 * With stopAfter > 0 it shuts down gracefully after that many cycles of the live loop and exits 0; otherwise it runs until
 * killed.
 */
import { migrate } from '#clickhouse/migrate.ts';
import { createStore } from '#clickhouse/store.ts';
import { MemoryBus } from '#bus/memory-bus.ts';
import { ensureProductTopics } from '#bus/topics.ts';
import { encodeMarketEvent } from '#schemas/event-codec.ts';
import { startRawWriter } from '../../raw-writer/raw-writer.ts';
import { startSnapshotProcessor } from '../processor.ts';
import { STEP_MS, stepEvents } from './generator.ts';
import { msColumn } from '#clickhouse/epoch-ms.ts';

const [dataPath, intervalArg, stopArg] = process.argv.slice(2);
if (dataPath === undefined) throw new Error('usage: restart-child.ts <dataPath> <intervalMs> <stopAfter>');
const intervalMs = Number(intervalArg ?? 1000);
const stopAfter = Number(stopArg ?? 0);

const store = await createStore({ dataPath });
await migrate(store);
const bus = new MemoryBus();
await ensureProductTopics(bus, 2);
const writer = await startRawWriter(bus, store, { groupId: 'raw-writer', maxBatchSize: 500 });

async function publishStep(ts: number): Promise<void> {
  for (const e of stepEvents(ts)) {
    const { topic, message } = encodeMarketEvent(e);
    await bus.publish(topic, [message]);
  }
}

// Replay what the feed produced while no process was running.
const [last] = await store.query<{ t: number; n: string }>(
  `SELECT ${msColumn('max(ts)', 't')}, toString(count()) AS n FROM option_trades WHERE symbol = 'BTCUSDT'`,
);
let lastTs = last !== undefined && last.n !== '0' ? last.t : Date.now() - STEP_MS;
let replayed = 0;
for (let ts = lastTs + STEP_MS; ts <= Date.now(); ts += STEP_MS) {
  await publishStep(ts);
  lastTs = ts;
  replayed++;
}
process.stdout.write(`replayed ${replayed}\n`);

const timer = setInterval(() => {
  const now = Date.now();
  if (now - lastTs >= STEP_MS) {
    lastTs = now;
    void publishStep(now);
  }
}, STEP_MS / 4);
// The feed runs for a moment before the processor starts (it then rebuilds from stored tickers of every venue).
await new Promise((r) => setTimeout(r, 1_000));

// Count cycles of the live loop (ticks after the start; a late tick is computed from the store, still counted).
const startedAt = Date.now();
let live = 0;
let stopping = false;
const processor = await startSnapshotProcessor(bus, store, {
  config: {
    symbols: ['BTCUSDT'],
    snapshotIntervalMs: intervalMs,
    tickerFreshnessMs: 60_000,
    priceFreshnessMs: 10_000,
    catchUpWindowMs: 60_000,
  },
  onCycle: (r) => {
    process.stdout.write(`cycle ${r.kind} ${r.computedAt} ${r.kind === 'stored' ? r.source : r.reason}\n`);
    if (r.kind === 'stored' && r.computedAt > startedAt && ++live >= stopAfter && stopAfter > 0 && !stopping) {
      stopping = true;
      void shutdown();
    }
  },
});

async function shutdown(): Promise<void> {
  clearInterval(timer);
  await processor.stop();
  await writer.stop();
  await bus.close();
  await store.close();
  process.stdout.write('stopped\n');
  process.exit(0);
}
