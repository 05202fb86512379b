/**
 * `npm run bench -- flow`: the dealer-flow processor over a growing synthetic BTC option-trade history.
 * For histories of 1, 3 and 12 months (FLOW_BENCH_TRADES_PER_DAY trades a day, default 28,800 = 10.5 M a year,
 * the size; generated inside the store by bench/flow-routes.ts fillTrades): the p50 of a 30 s dealer-flow
 * tick (trades since the last checkpoint + checkpoint insert), the p50 of an as_of inventory read (nearest
 * checkpoint + trades after it) and, as the same-run baseline, the p50 of the full scan it replaces, at the same
 * instants.
 */
import { migrate } from '#clickhouse/migrate.ts';
import { openTempStore } from '#clickhouse/testing/temp-store.ts';
import { entriesAsOf, fullScanEntries } from '#processors/dealer-flow/checkpoint-store.ts';
import { DealerFlow } from '#processors/dealer-flow/dealer-flow.ts';
import { fillTrades } from './flow-routes.ts';

const DAY = 86_400_000;
const START = Date.UTC(2025, 0, 1);
const INTERVAL = 30_000;

const p50 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

export async function runFlowBench(): Promise<void> {
  const perDay = Number(process.env.FLOW_BENCH_TRADES_PER_DAY ?? 28_800);
  const { store, dispose } = await openTempStore();
  try {
    await migrate(store);
    let storedTo = START;
    let rows = 0;
    for (const months of [1, 3, 12]) {
      const end = START + months * 30 * DAY;
      // history up to the stage's end + 1 h (the ticks below run in that last hour), stored a day at a time
      const count = Math.round(((end + 3_600_000 - storedTo) / DAY) * perDay);
      await fillTrades(store, end + 3_600_000, count, storedTo, rows);
      rows += count;
      storedTo = end + 3_600_000;
      const flow = new DealerFlow(store, { intervalMs: INTERVAL });
      const first = await timed(() => flow.tick('BTCUSDT', end)); // no checkpoint yet: full scan + full checkpoint
      const ticks: number[] = [];
      for (let t = end + INTERVAL; t <= end + 3_600_000; t += INTERVAL) ticks.push(await timed(() => flow.tick('BTCUSDT', t)));
      const asOf: number[] = [];
      const full: number[] = [];
      for (let i = 0; i < 30; i++) {
        const at = end + 120_000 + Math.floor(((i * 7_919) % 3_000) * 1_000);
        asOf.push(await timed(() => entriesAsOf(store, 'BTCUSDT', at)));
        full.push(await timed(() => fullScanEntries(store, 'BTCUSDT', at)));
      }
      process.stdout.write(
        `dealer-flow ${months} month(s), ${rows.toLocaleString('en-US')} trades stored: tick p50 ${p50(ticks).toFixed(1)} ms (${ticks.length} ticks; first tick with full scan ${first.toFixed(0)} ms); ` +
          `as_of p50 ${p50(asOf).toFixed(1)} ms vs full scan p50 ${p50(full).toFixed(1)} ms (x${(p50(full) / p50(asOf)).toFixed(1)})\n`,
      );
    }
  } finally {
    await dispose();
  }
}
