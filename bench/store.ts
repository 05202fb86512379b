/**
 * Embedded-store insert benchmark: batched inserts of option_trades rows into chDB through
 * clickhouse/store.ts (JSONCompactEachRow raw insert, a dedup token per batch), against baselines measured in
 * the same run: serialising the same rows, and the engine writing the same row count from numbers() with no
 * client in the way. Reports wall-clock rows/s and rows per CPU-second (steadier on shared cores).
 * Run: node --import tsx bench/store.ts
 */
import { rmSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { toJsonCompactEachRow } from '#clickhouse/compact-rows.ts';
import { migrate } from '#clickhouse/migrate.ts';
import { optionTradeRow, type OptionTradeRow } from '#clickhouse/rows.ts';
import { createStore, type Store } from '#clickhouse/store.ts';
import { optionTrade } from '#clickhouse/testing/fixtures.ts';
import { tempDataPath } from '#clickhouse/testing/temp-store.ts';
import { msInstant, msColumn } from '#clickhouse/epoch-ms.ts';

const TOTAL_ROWS = 200_000;

/** `n` distinct option-trade rows, numbered from `from` (ids, trade ids, strikes and sizes vary with the number). */
export function makeRows(n: number, from = 0): OptionTradeRow[] {
  return Array.from({ length: n }, (_, k) => {
    const i = from + k;
    const r = optionTradeRow(optionTrade(i));
    return { ...r, id: `bench:${i}`, trade_id: String(i), strike: 50_000 + (i % 80) * 1000, size: 0.1 + (i % 37) / 10 };
  });
}

async function countRows(store: Store): Promise<number> {
  const [r] = await store.query<{ n: string }>('SELECT count() AS n FROM option_trades');
  return Number(r?.n ?? 0);
}

interface Rate {
  /** Rows per wall-clock second. */
  readonly wall: number;
  /** Rows per second of this process's CPU time (JS + chDB threads): steadier on shared cores. */
  readonly cpu: number;
}

async function measure(rowCount: number, fn: () => Promise<void>): Promise<Rate> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const wall = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(c0);
  return { wall: rowCount / wall, cpu: rowCount / ((c.user + c.system) / 1e6) };
}

/** `inFlight` callers each inserting the next unclaimed batch (1 = one insert at a time). */
async function timeBatches(store: Store, rows: readonly OptionTradeRow[], batch: number, label: string, inFlight = 1): Promise<Rate> {
  await store.command('TRUNCATE TABLE option_trades');
  const rate = await measure(rows.length, async () => {
    let next = 0;
    const caller = async (): Promise<void> => {
      while (next < rows.length) {
        const i = next;
        next += batch;
        await store.insert('option_trades', rows.slice(i, i + batch), { dedupToken: `${label}:${i}` });
      }
    };
    await Promise.all(Array.from({ length: inFlight }, caller));
  });
  const stored = await countRows(store);
  if (stored !== rows.length) throw new Error(`${label}: stored ${stored} rows, expected ${rows.length}`);
  return rate;
}

const best = (a: Rate, b: Rate): Rate => (a.wall >= b.wall ? a : b);
const n = (x: number): string => Math.round(x).toLocaleString('en-US');
const fmt = (r: Rate): string => `${n(r.wall)} rows/s (${n(r.cpu)} rows per CPU-s)`;

export async function runStoreBench(): Promise<void> {
  const dataPath = tempDataPath('gex-bench-store-');
  const store = await createStore({ dataPath });
  try {
    await migrate(store);
    const rows = makeRows(TOTAL_ROWS);

    // Baseline 1: JSON.stringify of the same rows (JSONEachRow text), and the store's own serialiser
    // (JSONCompactEachRow in 10k batches): the client-side share of an embedded insert.
    let bytes = 0;
    const stringifyRate = await measure(rows.length, async () => {
      for (const r of rows) bytes += JSON.stringify(r).length + 1;
    });
    const compactRate = await measure(rows.length, async () => {
      for (let i = 0; i < rows.length; i += 10_000) toJsonCompactEachRow(rows.slice(i, i + 10_000));
    });

    // Baseline 2: the engine writing the same number of rows itself (no client, no parsing of JSON).
    await store.command('TRUNCATE TABLE option_trades');
    const first = rows[0];
    if (first === undefined) throw new Error('no rows');
    const engineRate = await measure(TOTAL_ROWS, () =>
      store.command(
        `INSERT INTO option_trades
       SELECT 'deribit', 'BTCUSDT',
              ${msInstant(`toInt64({t0:Int64} + number)`)},
              ${msInstant(`toInt64({t0:Int64} + 17 + number)`)},
              concat('bench:', toString(number)), 'BTC-27MAR26-85000-C', 50000 + (number % 80) * 1000,
              ${msInstant(`toInt64({expiry:Int64})`)}, 'call', 0.0123, 'BTC', 1044.2345678901,
              0.1 + (number % 37) / 10, 104.42345678901, 'buy', 0.5512, 84895.12, NULL, toString(number), number % 2 = 1
       FROM numbers({n:UInt64})`,
        { n: TOTAL_ROWS, t0: first.ts, expiry: first.expiry },
      ),
    );
    const [check] = await store.query<{ n: string; lo: number; hi: number }>(
      `SELECT count() AS n, ${msColumn('min(ts)', 'lo')}, ${msColumn('max(ts)', 'hi')} FROM option_trades`,
    );
    if (check?.n !== String(TOTAL_ROWS) || check.lo !== first.ts || check.hi !== first.ts + TOTAL_ROWS - 1) {
      throw new Error(`engine baseline wrote unexpected rows: ${JSON.stringify(check)}`);
    }

    // Best of two rounds each: the 2 shared cores are noisy.
    const rate10k = best(await timeBatches(store, rows, 10_000, 'b10k-1'), await timeBatches(store, rows, 10_000, 'b10k-2'));
    const rate1k = best(await timeBatches(store, rows, 1_000, 'b1k-1'), await timeBatches(store, rows, 1_000, 'b1k-2'));
    const rate10k2 = best(await timeBatches(store, rows, 10_000, 'p10k-1', 2), await timeBatches(store, rows, 10_000, 'p10k-2', 2));
    const [load1] = loadavg();

    const ratio = (a: Rate, b: Rate): string => `${(a.wall / b.wall).toFixed(3)}x`;
    const lines = [
      `store bench (embedded chDB, option_trades, ${n(TOTAL_ROWS)} rows, ~${Math.round(bytes / rows.length)} B/row as JSONEachRow, ` +
        `${cpus().length} cores, load avg ${load1?.toFixed(1) ?? '?'}; best of 2 rounds)`,
      `  insert, 10k-row batches : ${fmt(rate10k)}  target >= 150,000: ${rate10k.wall >= 150_000 ? 'OK' : 'BELOW'}`,
      `  insert, 10k-row batches, 2 in flight (serialising the next overlaps the engine storing the previous): ${fmt(rate10k2)}  target >= 150,000: ${rate10k2.wall >= 150_000 ? 'OK' : 'BELOW'}`,
      `  insert,  1k-row batches : ${fmt(rate1k)}`,
      `  baseline JSON.stringify (JSONEachRow)       : ${fmt(stringifyRate)}  insert@10k = ${ratio(rate10k, stringifyRate)}`,
      `  baseline store serialiser (JSONCompactEachRow): ${fmt(compactRate)}  insert@10k = ${ratio(rate10k, compactRate)}`,
      `  baseline INSERT … SELECT FROM numbers() in-engine: ${fmt(engineRate)}  insert@10k = ${ratio(rate10k, engineRate)}, @1k = ${ratio(rate1k, engineRate)}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await store.close();
    rmSync(dataPath, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runStoreBench();
}
