/**
 * What one INSERT of the raw writer costs the embedded store: option-trade batches of 1 and 750 rows (a 75 ms write
 * at 10,000 trades/s), 75 ms apart as the raw writer spaces them, into the product's schema (option_trades and the
 * materialized views it feeds: option_tape_1m, option_trades_unexpired, option_trades_live) against the same
 * inserts into option_trades with its views dropped (the bare bound), in the same run. Prints the process's CPU
 * milliseconds per INSERT (the engine's statement threads, its merges, the event loop; merges counted over the
 * window) and the INSERTs' wall time.
 * Run: node --import tsx bench/store-insert-cost.ts
 */
import { pathToFileURL } from 'node:url';
import { migrate } from '#clickhouse/migrate.ts';
import type { Store } from '#clickhouse/store.ts';
import { openTempStore } from '#clickhouse/testing/temp-store.ts';
import { makeRows } from './store.ts';
import { threadCpu, threadCpuSince } from './thread-cpu.ts';
import { storeFileSystemLine } from './store-file-system.ts';

const INSERTS = Number(process.env['BENCH_INSERT_COST_INSERTS'] ?? 110);
const WARMUP = 10;
const SPACING_MS = 75;
const VIEWS = ['option_tape_1m_mv', 'option_trades_unexpired_mv', 'option_trades_live_mv'] as const;

interface Cost {
  readonly cpuMsPerInsert: number;
  /** The kernel's part of it (system time): file creation, where the file system's cost shows. */
  readonly systemMsPerInsert: number;
  readonly wallP50Ms: number;
  readonly wallP90Ms: number;
  readonly threads: string;
}

async function measure(store: Store, rowsPerInsert: number): Promise<Cost> {
  let next = 0;
  const insert = async (tag: string): Promise<number> => {
    const batch = makeRows(rowsPerInsert, next);
    next += rowsPerInsert;
    const t0 = performance.now();
    await store.insert('option_trades', batch, { dedupToken: `${tag}:${next}` });
    return performance.now() - t0;
  };
  for (let i = 0; i < WARMUP; i++) await insert('warmup');
  const cpu0 = process.cpuUsage();
  const threads0 = threadCpu();
  const walls: number[] = [];
  for (let i = 0; i < INSERTS; i++) {
    walls.push(await insert('timed'));
    await new Promise((r) => setTimeout(r, SPACING_MS));
  }
  const cpu = process.cpuUsage(cpu0);
  walls.sort((a, b) => a - b);
  return {
    cpuMsPerInsert: (cpu.user + cpu.system) / 1000 / INSERTS,
    systemMsPerInsert: cpu.system / 1000 / INSERTS,
    wallP50Ms: walls[Math.floor(walls.length / 2)] as number,
    wallP90Ms: walls[Math.floor(walls.length * 0.9)] as number,
    threads: threadCpuSince(threads0),
  };
}

async function withSchema<T>(bare: boolean, run: (store: Store) => Promise<T>): Promise<T> {
  const { store, dispose } = await openTempStore();
  try {
    await migrate(store);
    if (bare) for (const v of VIEWS) await store.command(`DROP VIEW ${v}`);
    return await run(store);
  } finally {
    await dispose();
  }
}

export async function runStoreInsertCostBench(): Promise<void> {
  process.stdout.write(
    `\n== store: the cost of one raw-writer INSERT of option trades (${INSERTS} INSERTs ${SPACING_MS} ms apart; ` +
      `product schema vs option_trades without its views)\n${storeFileSystemLine()}\n`,
  );
  for (const n of [1, 750]) {
    const bare = await withSchema(true, (s) => measure(s, n));
    const product = await withSchema(false, (s) => measure(s, n));
    for (const [label, c] of [
      ['bare option_trades', bare],
      ['product schema', product],
    ] as const) {
      const ratio = label === 'product schema' ? `  ${(c.cpuMsPerInsert / bare.cpuMsPerInsert).toFixed(2)}x bare CPU` : '';
      process.stdout.write(
        `${`${n} rows, ${label}`.padEnd(30)} CPU ${c.cpuMsPerInsert.toFixed(1).padStart(6)} ms/INSERT ` +
          `(kernel ${c.systemMsPerInsert.toFixed(1)})  wall p50 ` +
          `${c.wallP50Ms.toFixed(1).padStart(6)} ms  p90 ${c.wallP90Ms.toFixed(1).padStart(6)} ms${ratio}\n    CPU-s by thread: ${c.threads}\n`,
      );
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  runStoreInsertCostBench().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
