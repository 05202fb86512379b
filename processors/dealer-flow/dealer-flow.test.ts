import { test } from 'node:test';
import assert from 'node:assert/strict';
import { migrate } from '#clickhouse/migrate.ts';
import { optionTradeRow } from '#clickhouse/rows.ts';
import { openTempStore } from '#clickhouse/testing/temp-store.ts';
import { prng } from '../analytics/testing/synthetic-chain.ts';
import { inventoryAsOf } from '../snapshots/inventory.ts';
import { compareEntries, inventoryMap } from './book.ts';
import type { BookEntry } from './book.ts';
import { entriesAsOf, fullScanEntries } from './checkpoint-store.ts';
import { DealerFlow } from './dealer-flow.ts';
import { syntheticTrades } from './testing/synthetic-trades.ts';

const START = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;
const INTERVAL = 3_600_000;
const sorted = (e: readonly BookEntry[]): BookEntry[] => [...e].sort(compareEntries);

test(
  'dealer flow: incremental checkpoints + trades after them == full scan at random instants over 10 days',
  { timeout: 180_000 },
  async () => {
    const { store, dispose } = await openTempStore();
    try {
      await migrate(store);
      const end = START + 10 * DAY;
      const trades = syntheticTrades({ seed: 7, startMs: START, endMs: end, stepMs: 120_000, duplicateShare: 0.05 });
      assert.ok(trades.length > 7_000, `trades: ${trades.length}`);
      const flow = new DealerFlow(store, { intervalMs: INTERVAL, lagMs: INTERVAL, fullEveryMs: 6 * 3_600_000 });
      // Trades reach the store tick by tick (each tick after every trade with ts ≤ tick is stored, the drain
      // guarantee), in parts; redelivered copies land in the same or the next part.
      let i = 0;
      let written = 0;
      let fulls = 0;
      for (let tick = START + INTERVAL; tick <= end; tick += INTERVAL) {
        const from = i;
        while (i < trades.length && (trades[i]?.ts ?? Infinity) <= tick) i++;
        if (i > from) await store.insert('option_trades', trades.slice(from, i).map(optionTradeRow), { dedupToken: `p${tick}` });
        const r = await flow.tick('BTCUSDT', tick);
        assert.equal(r.checkpointAt, tick - INTERVAL);
        if (r.written) written++;
        if (r.full) fulls++;
      }
      assert.equal(written, 10 * 24); // checkpoints START … end − 1 h
      assert.equal(fulls, 10 * 4); // the first checkpoint (START), then every 6 h
      // A second tick at the same instant writes nothing.
      assert.equal((await flow.tick('BTCUSDT', end)).written, false);

      const rand = prng(11);
      const instants = [
        START + INTERVAL,
        end - INTERVAL,
        end,
        end + DAY,
        ...Array.from({ length: 40 }, () => START + Math.floor(rand() * 10 * DAY)),
      ];
      for (const t of instants) {
        const at = new Date(t).toISOString();
        const full = await fullScanEntries(store, 'BTCUSDT', t);
        assert.deepEqual(sorted(await entriesAsOf(store, 'BTCUSDT', t)), sorted(full), at);
        // The snapshot's map agrees with the legacy floating-point full scan to rounding.
        const legacy = await inventoryAsOf(store, 'BTCUSDT', t);
        const inc = await flow.inventoryAt('BTCUSDT', t);
        assert.deepEqual([...inc.keys()], [...legacy.keys()], at);
        for (const [k, v] of inc) assert.ok(Math.abs(v - (legacy.get(k) ?? NaN)) < 1e-9, `${at} ${k}: ${v} vs ${legacy.get(k)}`);
        assert.ok(full.length > 0 || t < START + DAY, at);
      }

      // Data engineers' view: the state at a checkpoint from the table alone equals the full scan there.
      const c = START + 5 * DAY + 7 * INTERVAL;
      const fromTable = await store.query<{ venue: string; instrument: string; inventory: number }>(
        `SELECT venue, instrument, argMax(inventory, checkpoint_at) AS inventory FROM dealer_inventory
       WHERE symbol = 'BTCUSDT' AND checkpoint_at >= (SELECT max(checkpoint_at) FROM dealer_inventory_ticks WHERE symbol = 'BTCUSDT' AND full AND checkpoint_at <= fromUnixTimestamp64Milli({c:Int64}))
         AND checkpoint_at <= fromUnixTimestamp64Milli({c:Int64}) AND expiry > fromUnixTimestamp64Milli({c:Int64})
       GROUP BY venue, instrument ORDER BY venue, instrument`,
        { c },
      );
      assert.deepEqual(
        new Map(fromTable.map((r) => [`${r.venue}|${r.instrument}`, r.inventory])),
        inventoryMap(await fullScanEntries(store, 'BTCUSDT', c)),
      );

      // A fresh processor (restart) resumes from the latest checkpoint: no rewrite, no double count.
      const again = new DealerFlow(store, { intervalMs: INTERVAL, lagMs: INTERVAL, fullEveryMs: 6 * 3_600_000 });
      assert.equal((await again.tick('BTCUSDT', end)).written, false);
      const next = await again.tick('BTCUSDT', end + INTERVAL);
      // It reads only the trades of the last interval (each once, redelivered copies collapse).
      const lastHour = new Set(trades.filter((t) => t.ts > end - INTERVAL && t.ts <= end).map((t) => t.id)).size;
      assert.ok(lastHour > 10);
      assert.deepEqual([next.written, next.full, next.newTrades], [true, true, lastHour]);
      assert.deepEqual(
        sorted(await entriesAsOf(store, 'BTCUSDT', end + INTERVAL)),
        sorted(await fullScanEntries(store, 'BTCUSDT', end + INTERVAL)),
      );
      const dups = await store.query(
        'SELECT checkpoint_at, venue, instrument, count() AS n FROM dealer_inventory GROUP BY ALL HAVING n > 1',
      );
      assert.deepEqual(dups, []);
    } finally {
      await dispose();
    }
  },
);

test(
  "dealer flow: killed between a checkpoint's rows and its marker, the rewrite by the next process is read once (not summed with the orphan rows)",
  { timeout: 120_000 },
  async () => {
    const { store, dispose } = await openTempStore();
    try {
      await migrate(store);
      // Merges stopped: the orphan rows and the rewrite stay two writes, as between a restart and the next merge.
      await store.command('SYSTEM STOP MERGES dealer_inventory');
      const H = 3_600_000;
      const trades = syntheticTrades({ seed: 7, startMs: START, endMs: START + 12 * H, stepMs: 120_000, duplicateShare: 0 });
      await store.insert('option_trades', trades.map(optionTradeRow));
      let killed = false;
      // Process A: its marker insert fails once `killed` is set (the rows before it are stored).
      const dying = new Proxy(store, {
        get: (target, key) =>
          key === 'insert'
            ? (table: string, ...rest: unknown[]) => {
                if (killed && table === 'dealer_inventory_ticks') return Promise.reject(new Error('SIGKILL'));
                return (target.insert as (...a: unknown[]) => Promise<void>).call(target, table, ...rest);
              }
            : Reflect.get(target, key),
      });
      const a = new DealerFlow(dying, { intervalMs: H, lagMs: H, fullEveryMs: 6 * H });
      for (let tick = START + H; tick <= START + 4 * H; tick += H) await a.tick('BTCUSDT', tick);
      killed = true;
      await assert.rejects(a.tick('BTCUSDT', START + 5 * H), /SIGKILL/); // checkpoint 04:00: rows, no marker
      const b = new DealerFlow(store, { intervalMs: H, lagMs: H, fullEveryMs: 6 * H });
      const rewrite = await b.tick('BTCUSDT', START + 5 * H);
      assert.deepEqual([rewrite.checkpointAt, rewrite.written, rewrite.full], [START + 4 * H, true, true]);
      await b.tick('BTCUSDT', START + 6 * H);
      // Both writes of checkpoint 04:00 are physically there: A's incremental rows and B's full ones.
      const writes = await store.query<{ full: boolean | number; n: string }>(
        "SELECT full, count() AS n FROM dealer_inventory WHERE symbol = 'BTCUSDT' AND checkpoint_at = fromUnixTimestamp64Milli({c:Int64}) GROUP BY full ORDER BY full",
        { c: START + 4 * H },
      );
      assert.equal(writes.length, 2, JSON.stringify(writes));
      assert.ok(Number(writes[0]?.n) > 0 && Number(writes[1]?.n) > Number(writes[0]?.n), JSON.stringify(writes));
      for (const t of [START + 4 * H, START + 4.5 * H, START + 5 * H, START + 5.5 * H]) {
        assert.deepEqual(
          sorted(await entriesAsOf(store, 'BTCUSDT', t)),
          sorted(await fullScanEntries(store, 'BTCUSDT', t)),
          new Date(t).toISOString(),
        );
      }
    } finally {
      await dispose();
    }
  },
);
