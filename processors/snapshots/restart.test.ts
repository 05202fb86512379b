/**
 * SIGKILL restart: a child process owns the chDB data dir and runs raw writer + snapshot processor (1 s ticks)
 * on an in-process bus fed by the deterministic generator. It is SIGKILLed mid-run, a second child restarts on
 * the same dir (replaying the feed it missed), catches up the ticks missed while down and runs three live
 * ticks, then exits. Only then does this process open the dir and check: no duplicate rows, no missing aligned
 * tick between the first and the last snapshot, every stored flow inventory equal to a from-scratch
 * recomputation from the stored trades, dealer-flow checkpoints without duplicates whose incremental reads equal
 * the full scan at every checkpoint and snapshot instant, and an unbroken gamma-flow chain.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createStore } from '#clickhouse/store.ts';
import { tempDataPath } from '#clickhouse/testing/temp-store.ts';
import type { TakerSide } from '#schemas/events.ts';
import { clipInventory, dealerInventoryAsOf } from '../analytics/dealer.ts';
import type { OpenContract } from '../analytics/dealer.ts';
import { GEN_EXPIRY, GEN_INSTRUMENTS } from './testing/generator.ts';
import { msColumn, msNullableColumn } from '#clickhouse/epoch-ms.ts';
import { compareEntries, type BookEntry } from '../dealer-flow/book.ts';
import { entriesAsOf, fullScanEntries } from '../dealer-flow/checkpoint-store.ts';

const CHILD = fileURLToPath(new URL('./testing/restart-child.ts', import.meta.url));
const INTERVAL = 1_000;

interface Run {
  readonly child: ChildProcess;
  readonly lines: string[];
  /** Last stderr lines (warn+ logs), for failure messages. */
  readonly errors: string[];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function start(dataPath: string, stopAfter: number): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dataPath, String(INTERVAL), String(stopAfter)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LOG_LEVEL: 'warn' },
  });
  const lines: string[] = [];
  let buf = '';
  child.stdout?.on('data', (d: Buffer) => {
    buf += d.toString('utf8');
    const parts = buf.split('\n');
    buf = parts.pop() ?? '';
    lines.push(...parts);
  });
  const errors: string[] = [];
  child.stderr?.on('data', (d: Buffer) => {
    errors.push(
      ...d
        .toString('utf8')
        .split('\n')
        .filter((l) => l !== ''),
    );
    errors.splice(0, Math.max(0, errors.length - 20));
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  return { child, lines, errors, exited };
}

const report = (r: Run): string => `stdout:\n${r.lines.join('\n')}\nstderr:\n${r.errors.join('\n')}`;

async function until(check: () => boolean, timeoutMs: number, r: Run): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) {
      r.child.kill('SIGKILL');
      throw new Error(`timed out\n${report(r)}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

const stored = (r: Run): string[] => r.lines.filter((l) => l.startsWith('cycle stored'));

test(
  'snapshot processor killed with SIGKILL and restarted: no duplicates, no gaps, inventories match a recomputation',
  // Bounds for a busy 2-core machine (38 s alone; B's catch-up outlasted 45 s at load average 17).
  { timeout: 300_000 },
  async () => {
    const dataPath = tempDataPath('gex-restart-');
    try {
      const a = start(dataPath, 0);
      await until(() => stored(a).length >= 3, 90_000, a);
      await new Promise((r) => setTimeout(r, INTERVAL / 2 + 37)); // kill between ticks, likely mid-cycle or mid-batch
      a.child.kill('SIGKILL');
      assert.equal((await a.exited).signal, 'SIGKILL');
      await new Promise((r) => setTimeout(r, 1_200)); // at least one tick passes with no process

      const b = start(dataPath, 3);
      let bDone = false;
      void b.exited.then(() => (bDone = true));
      await until(() => bDone, 150_000, b);
      const bExit = await b.exited;
      assert.equal(bExit.code, 0, report(b));
      const caughtUp = stored(b).filter((l) => l.endsWith(' store') || l.endsWith(' resumed'));
      assert.ok(caughtUp.length >= 1, `the restart computed the ticks missed while down:\n${report(b)}`);

      const store = await createStore({ dataPath });
      try {
        // 1. No duplicate rows in any snapshot table (dedup tokens; counted without FINAL).
        for (const [table, key] of [
          ['gex_snapshots', 'symbol, venue, computed_at'],
          ['gex_levels', 'symbol, computed_at, model'],
          ['gamma_flow', 'symbol, model, computed_at'],
        ] as const) {
          const dups = await store.query(`SELECT ${key}, count() AS c FROM ${table} GROUP BY ${key} HAVING c > 1`);
          assert.deepEqual(dups, [], table);
        }

        // 2. Every aligned tick between the first and the last snapshot is there, with both venues.
        const ticks = await store.query<{ t: number; venues: string[] }>(
          `SELECT ${msColumn('computed_at', 't')}, groupArray(venue) AS venues FROM (SELECT computed_at, venue FROM gex_snapshots WHERE symbol = 'BTCUSDT' ORDER BY venue) GROUP BY computed_at ORDER BY computed_at`,
        );
        assert.ok(ticks.length >= 7, `ticks stored: ${ticks.length}`);
        for (const [i, row] of ticks.entries()) {
          assert.equal(row.t % INTERVAL, 0, 'aligned');
          if (i > 0)
            assert.equal(
              row.t - (ticks[i - 1]?.t ?? 0),
              INTERVAL,
              `gap before ${new Date(row.t).toISOString()}\nA ${report(a)}\nB ${report(b)}`,
            );
          assert.deepEqual(row.venues, ['deribit', 'okx'], `${new Date(row.t).toISOString()}\nA ${report(a)}\nB ${report(b)}`);
        }
        // Every tick a child reported as stored is in the table (A's last reported cycles survived the kill).
        const inTable = new Set(ticks.map((t) => t.t));
        for (const l of [...stored(a), ...stored(b)]) assert.ok(inTable.has(Number(l.split(' ')[2])), l);

        // 3. Flow inventories: every stored row equals a from-scratch recomputation from the stored trades
        //    (deduplicated by id here, independently of the FINAL the processor uses).
        const trades = (
          await store.query<{ id: string; instrument: string; ts_ms: number; size: number; side: TakerSide }>(
            `SELECT id, instrument, ${msColumn('ts', 'ts_ms')}, size, side FROM option_trades WHERE symbol = 'BTCUSDT'`,
          )
        ).map((r) => ({ id: r.id, instrument: r.instrument, ts: r.ts_ms, size: r.size, side: r.side }));
        const unique = [...new Map(trades.map((t) => [t.id, t])).values()];
        assert.ok(unique.length > 20);
        const deribit = GEN_INSTRUMENTS.filter((i) => i.venue === 'deribit');
        const contracts = new Map<string, OpenContract>(
          deribit.map((i) => [i.name, { openInterest: Number.POSITIVE_INFINITY, expiry: GEN_EXPIRY }]),
        );
        const rows = await store.query<{
          t: number;
          venue: string;
          inv_contracts: number;
          inv_net: number;
          inv_abs: number;
          inv_unclipped_net: number;
          oi_total: number;
        }>(
          `SELECT ${msColumn('computed_at', 't')}, venue, inv_contracts, inv_net, inv_abs, inv_unclipped_net, oi_total FROM gex_snapshots WHERE symbol = 'BTCUSDT' ORDER BY t, venue`,
        );
        const close = (x: number, y: number): boolean => Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(y));
        for (const r of rows) {
          if (r.venue === 'okx') {
            assert.deepEqual(
              [r.inv_contracts, r.inv_unclipped_net, r.oi_total],
              [0, 0, GEN_INSTRUMENTS.filter((i) => i.venue === 'okx').reduce((s, i) => s + i.oi, 0)],
            );
            continue;
          }
          const inv = dealerInventoryAsOf(unique, r.t, contracts); // unclipped (OI = ∞); 0 for contracts without trades
          const traded = new Set(unique.filter((t) => t.ts <= r.t).map((t) => t.instrument));
          let net = 0;
          let clippedNet = 0;
          let abs = 0;
          for (const i of deribit) {
            if (!traded.has(i.name)) continue;
            const v = inv.get(i.name) ?? 0;
            net += v;
            clippedNet += clipInventory(v, i.oi);
            abs += Math.abs(clipInventory(v, i.oi));
          }
          const at = new Date(r.t).toISOString();
          assert.equal(r.inv_contracts, traded.size, at);
          assert.ok(close(r.inv_unclipped_net, net), `${at}: unclipped ${r.inv_unclipped_net} vs ${net}`);
          assert.ok(close(r.inv_net, clippedNet), `${at}: clipped ${r.inv_net} vs ${clippedNet}`);
          assert.ok(close(r.inv_abs, abs), `${at}: abs ${r.inv_abs} vs ${abs}`);
        }

        // 4. Dealer-flow checkpoints: no duplicate rows or markers, and at every checkpoint and every snapshot
        //    instant the incremental read (checkpoint + trades after it) equals the full scan exactly.
        for (const [table, key] of [
          ['dealer_inventory', 'symbol, checkpoint_at, venue, instrument'],
          ['dealer_inventory_ticks', 'symbol, checkpoint_at'],
        ] as const) {
          assert.deepEqual(await store.query(`SELECT ${key}, count() AS c FROM ${table} GROUP BY ${key} HAVING c > 1`), [], table);
        }
        const marks = await store.query<{ t: number }>(
          "SELECT toFloat64(toUnixTimestamp64Milli(checkpoint_at)) AS t FROM dealer_inventory_ticks WHERE symbol = 'BTCUSDT' ORDER BY t",
        );
        assert.ok(marks.length >= 5, `checkpoints: ${marks.length}`);
        for (const t of [...marks.map((m) => m.t), ...ticks.map((x) => x.t)]) {
          const byKey = (e: readonly BookEntry[]): BookEntry[] => [...e].sort(compareEntries);
          assert.deepEqual(
            byKey(await entriesAsOf(store, 'BTCUSDT', t)),
            byKey(await fullScanEntries(store, 'BTCUSDT', t)),
            new Date(t).toISOString(),
          );
        }

        // 5. The gamma-flow chain is unbroken across the restart: each point follows the previous tick.
        for (const model of ['flow', 'std']) {
          const flow = await store.query<{ t: number; prev: number | null; increment: number; cumulative: number }>(
            `SELECT ${msColumn('computed_at', 't')}, ${msNullableColumn('prev_computed_at', 'prev')}, increment, cumulative
           FROM gamma_flow WHERE symbol = 'BTCUSDT' AND model = {m:String} ORDER BY computed_at`,
            { m: model },
          );
          assert.equal(flow.length, ticks.length);
          for (const [i, p] of flow.entries()) {
            const prev = flow[i - 1];
            assert.equal(p.prev, prev?.t ?? null);
            assert.ok(close(p.cumulative, (prev?.cumulative ?? 0) + p.increment));
          }
        }
      } finally {
        await store.close();
      }
    } finally {
      rmSync(dataPath, { recursive: true, force: true });
    }
  },
);
