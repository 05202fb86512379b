/**
 * The store fill of the replay bench (bench/replay.ts), generated inside the store (INSERT … SELECT FROM numbers()):
 * - snapshots: every 30 s tick of [start, end] for BTCUSDT, 4 venues. TEMPLATES real snapshots (syntheticChain ->
 *   rowsFromChain -> storeSnapshotRows, levelsOf -> storeLevelsAndFlow: the processor's write path, `perVenue`
 *   instruments a venue, spots 1 % apart) are written at instants before the window, then copied in SQL to the
 *   ticks: gex_snapshots (the venue rows the levels replay reads) and gex_levels (both models: the completed-tick
 *   index it lists instants from), template (tick / 10) % TEMPLATES, so neighbouring ticks share rows as in a
 *   calm market and the parts compress as real ones do.
 * - trades: `n` BTCUSDT option trades spread evenly over the same window, 4 venues, 400 instruments (5 expiries, 40
 *   strikes, calls and puts). Their numbers vary as a tape's do, each the double of a short decimal as ingest stores
 *   it (parse-helpers.ts clean): price p / 2000 BTC (300 ticks), size s / 10 (13 sizes), index price x / 100 USD
 *   (~1 M values, 90,000-100,000), price_usd and premium_usd their exact products (hardly two alike), iv 4 decimals
 *   (3,000 values).
 * Progress on stderr, per batch.
 */
import { msInstant, msInt64, msParam } from '#clickhouse/epoch-ms.ts';
import type { Store } from '#clickhouse/store.ts';
import { syntheticChain } from '#processors/analytics/testing/synthetic-chain.ts';
import { rowsFromChain } from '#processors/snapshots/compute-step.ts';
import { gammaFlowPoints, levelsOf } from '#processors/snapshots/levels-step.ts';
import { storeLevelsAndFlow, storeSnapshotRows } from '#processors/snapshots/write-step.ts';
import type { Venue } from '#schemas/events.ts';

export const INTERVAL = 30_000;
const DAY = 86_400_000;
const TEMPLATES = 12;
export const VENUES: readonly Venue[] = ['deribit', 'okx', 'bybit', 'binance'];

const progress = (what: string, done: number, total: number): void => {
  process.stderr.write(`  ${what}: ${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')}\n`);
};

async function columnsOf(store: Store, table: string): Promise<string[]> {
  const rows = await store.query<{ name: string }>(
    'SELECT name FROM system.columns WHERE database = currentDatabase() AND table = {table:String} ORDER BY position',
    { table },
  );
  return rows.map((c) => c.name);
}

/** The templates, through the processor's write path, at TEMPLATES ticks from `at`. */
async function writeTemplates(store: Store, at: number, perVenue: number): Promise<void> {
  for (let k = 0; k < TEMPLATES; k++) {
    const t = at + k * INTERVAL;
    const chain = syntheticChain({
      symbol: 'BTCUSDT',
      now: t,
      spot: 100_000 * (1 + 0.01 * k),
      venues: VENUES,
      perVenue,
      seed: 900 + k,
      withInventory: true,
      baseIv: 0.5,
    });
    const rows = rowsFromChain(chain, 'live');
    await storeSnapshotRows(store, 'BTCUSDT', t, rows);
    const levels = levelsOf('BTCUSDT', t, rows);
    await storeLevelsAndFlow(store, levels, gammaFlowPoints(levels, { flow: null, std: null }));
  }
}

/** Copies template rows of `table` to ticks [first, first + n) of the window starting at `start`. */
async function copyTemplates(store: Store, table: string, cols: readonly string[], start: number, tpl: number, first: number, n: number) {
  const select = cols.map((c) => (c === 'computed_at' ? 'g.at' : `tp.${c}`)).join(', ');
  await store.command(
    `INSERT INTO ${table} (${cols.join(', ')})
     SELECT ${select}
     FROM (
       SELECT ${msInstant(`toInt64({start:Int64} + (number + {first:UInt64}) * ${INTERVAL})`)} AS at,
         intDiv(number + {first:UInt64}, 10) % ${TEMPLATES} AS k
       FROM numbers({n:UInt64})
     ) AS g
     INNER JOIN (
       SELECT *, toUInt64(intDiv(${msInt64('computed_at')} - {tpl:Int64}, ${INTERVAL})) AS k
       FROM ${table}
       WHERE symbol = 'BTCUSDT' AND computed_at >= ${msParam('tpl')} AND computed_at < ${msParam('tpl_end')}
     ) AS tp ON g.k = tp.k
     SETTINGS max_insert_threads = 2`,
    { start, first, n, tpl, tpl_end: tpl + TEMPLATES * INTERVAL },
  );
}

/** Snapshots at every tick of [start, start + (ticks - 1) * INTERVAL] (templates 30 days before `start`). */
export async function fillSnapshots(store: Store, start: number, ticks: number, perVenue: number): Promise<void> {
  const tpl = start - 30 * DAY;
  await writeTemplates(store, tpl, perVenue);
  const batch = Math.round((2 * DAY) / INTERVAL);
  const snapshotCols = await columnsOf(store, 'gex_snapshots');
  const levelCols = await columnsOf(store, 'gex_levels');
  for (let first = 0; first < ticks; first += batch) {
    const n = Math.min(batch, ticks - first);
    await copyTemplates(store, 'gex_snapshots', snapshotCols, start, tpl, first, n);
    await copyTemplates(store, 'gex_levels', levelCols, start, tpl, first, n);
    progress('snapshot ticks (x4 venue rows, x2 gex_levels rows)', first + n, ticks);
  }
}

/** `n` option trades over [start, end), in batches of a million. */
export async function fillTrades(store: Store, start: number, end: number, n: number): Promise<void> {
  const batch = 1_000_000;
  for (let first = 0; first < n; first += batch) {
    const m = Math.min(batch, n - first);
    await store.command(
      `INSERT INTO option_trades (venue, symbol, ts, received_at, id, instrument, strike, expiry, option_type, price, price_currency,
         price_usd, size, premium_usd, side, iv, index_price, underlying_price, trade_id, block)
       SELECT ['deribit', 'okx', 'bybit', 'binance'][i % 4 + 1], 'BTCUSDT', ${msInstant('t')}, ${msInstant('t + 40')},
         concat('bench:', toString(i)), concat('BTC-', ['27MAR26', '26JUN26', '25SEP26', '25DEC26', '26MAR27'][e + 1], '-',
           toString(80000 + (i % 40) * 1000), if(i % 2 = 0, '-C', '-P')),
         80000 + (i % 40) * 1000, ${msInstant('toInt64([1774598400000, 1782460800000, 1790323200000, 1798185600000, 1806048000000][e + 1])')},
         if(i % 2 = 0, 'call', 'put'),
         p / 2000, 'BTC', p * x / 200000, s / 10, p * x * s / 2000000, if(i % 3 = 0, 'sell', 'buy'),
         (4000 + i * 31 % 3000) / 10000, x / 100, (x + 1000) / 100, toString(i), i % 101 = 0
       FROM (
         SELECT number + {first:UInt64} AS i, toInt64({start:Int64} + intDiv(i * ({end:Int64} - {start:Int64}), {n:Int64})) AS t,
           1 + i % 300 AS p, 1 + i % 13 AS s, 9000000 + i * 7919 % 1000000 AS x, intDiv(i, 7) % 5 AS e
         FROM numbers({m:UInt64})
       )
       SETTINGS max_insert_threads = 2`,
      { first, start, end, n, m },
    );
    progress('option trades', first + m, n);
  }
}

/** Waits (up to 15 min) until no background merge runs; returns the seconds waited. */
export async function settle(store: Store): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    const [m] = await store.query<{ n: string }>('SELECT toString(count()) AS n FROM system.merges');
    if (Number(m?.n ?? 0) === 0 || performance.now() - t0 > 15 * 60_000) return (performance.now() - t0) / 1000;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}
