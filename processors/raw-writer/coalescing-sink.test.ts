import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openTempStore } from '#clickhouse/testing/temp-store.ts';
import { migrate } from '#clickhouse/migrate.ts';
import { optionTradeRow, perpStatsRow, type RawRow, type RawTable } from '#clickhouse/rows.ts';
import * as fx from '#clickhouse/testing/fixtures.ts';
import type { Store } from '#clickhouse/store.ts';
import { CoalescingSink } from './coalescing-sink.ts';

/** The real store, with its INSERT calls counted (every other method passes straight through). */
function counting(store: Store): { store: Store; inserts: { table: string; rows: number }[] } {
  const inserts: { table: string; rows: number }[] = [];
  const insert: Store['insert'] = async (table, rows, opts) => {
    inserts.push({ table, rows: rows.length });
    await store.insert(table, rows, opts);
  };
  const counted = new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'insert') return insert;
      const v: unknown = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { store: counted, inserts };
}

const trades = (from: number, n: number): RawRow[] => Array.from({ length: n }, (_, i) => optionTradeRow(fx.optionTrade(from + i)));
const batch = (token: string, t: RawRow[], stats = false): { byTable: Map<RawTable, RawRow[]>; token: string } => {
  const byTable = new Map<RawTable, RawRow[]>([['option_trades', t]]);
  if (stats) byTable.set('perp_stats', [perpStatsRow(fx.perpStats)]);
  return { byTable, token };
};

test('batches of several writers waiting together go out as one INSERT per table', async () => {
  const t = await openTempStore();
  try {
    await migrate(t.store);
    const c = counting(t.store);
    const stored: number[] = [];
    const sink = new CoalescingSink(c.store, {
      writers: 3,
      maxRows: 100_000,
      lingerMs: 10_000,
      onStored: (_t, rows) => stored.push(rows.length),
    });
    // The third writer's submit completes the set: flushed at once, long before the 10 s linger.
    const started = Date.now();
    await Promise.all([
      sink.submit(batch('a', trades(0, 100))),
      sink.submit(batch('b', trades(100, 50), true)),
      sink.submit(batch('c', trades(150, 25))),
    ]);
    assert.ok(Date.now() - started < 5_000);
    assert.deepEqual(c.inserts, [
      { table: 'option_trades', rows: 175 },
      { table: 'perp_stats', rows: 1 },
    ]);
    assert.deepEqual(stored, [175, 1]);
    const n = await t.store.query<{ n: string }>('SELECT count() AS n FROM option_trades');
    assert.equal(n[0]?.n, '175');
  } finally {
    await t.dispose();
  }
});

test('a lone batch is flushed after the linger; maxRows flushes at once', async () => {
  const t = await openTempStore();
  try {
    await migrate(t.store);
    const c = counting(t.store);
    const sink = new CoalescingSink(c.store, { writers: 4, maxRows: 300, lingerMs: 50 });
    const t0 = Date.now();
    await sink.submit(batch('lone', trades(0, 10)));
    assert.ok(Date.now() - t0 >= 45, 'waited for the linger');
    await sink.submit(batch('big', trades(10, 300)));
    assert.deepEqual(
      c.inserts.map((i) => i.rows),
      [10, 300],
    );
  } finally {
    await t.dispose();
  }
});

test('a failed INSERT rejects every batch in it (each member then retries); nothing is half-acknowledged', async () => {
  const t = await openTempStore();
  await migrate(t.store);
  const sink = new CoalescingSink(t.store, { writers: 2, maxRows: 100_000, lingerMs: 10 });
  await t.dispose(); // the store is closed under the sink
  const results = await Promise.allSettled([sink.submit(batch('x', trades(0, 5))), sink.submit(batch('y', trades(5, 5)))]);
  assert.deepEqual(
    results.map((r) => r.status),
    ['rejected', 'rejected'],
  );
});

test('one write at a time: batches that arrive meanwhile go out together in the next, minIntervalMs after the last start', async () => {
  const t = await openTempStore();
  try {
    await migrate(t.store);
    const c = counting(t.store);
    const starts: number[] = [];
    const timed: Store = new Proxy(c.store, {
      get(target, prop, receiver) {
        if (prop === 'insert') return (...a: Parameters<Store['insert']>) => (starts.push(Date.now()), target.insert(...a));
        return Reflect.get(target, prop, receiver) as unknown;
      },
    });
    const sink = new CoalescingSink(timed, { writers: 100, maxRows: 1_000, lingerMs: 0, minIntervalMs: 150 });
    const first = sink.submit(batch('a', trades(0, 10))); // no write before it: starts at once
    const during = [sink.submit(batch('b', trades(10, 20))), sink.submit(batch('c', trades(30, 5)))];
    await Promise.all([first, ...during]);
    assert.deepEqual(
      c.inserts.map((i) => i.rows),
      [10, 25],
      'the two batches submitted during the first write share the second',
    );
    assert.ok((starts[1] ?? 0) - (starts[0] ?? 0) >= 145, `second write ${(starts[1] ?? 0) - (starts[0] ?? 0)} ms after the first`);

    // maxRows waiting: no spacing (here 10 s), the write starts as soon as the one in flight ends.
    const spaced = new CoalescingSink(c.store, { writers: 100, maxRows: 1_000, lingerMs: 0, minIntervalMs: 10_000 });
    await spaced.submit(batch('small', trades(100, 3)));
    const t0 = Date.now();
    await spaced.submit(batch('big', trades(200, 1_000)));
    assert.ok(Date.now() - t0 < 5_000, `a full batch waited ${Date.now() - t0} ms`);
    assert.deepEqual(
      c.inserts.map((i) => i.rows),
      [10, 25, 3, 1_000],
    );
  } finally {
    await t.dispose();
  }
});

test('maxWrites 2: a second write starts while the first INSERT still runs, each resolves its own batches; maxWrites 1 waits', async () => {
  const t = await openTempStore();
  try {
    await migrate(t.store);
    /** The real store, its first INSERT held until `release()`. */
    const held = (): { store: Store; release: () => void; starts: number[] } => {
      let release = (): void => undefined;
      const gate = new Promise<void>((r) => (release = r));
      const starts: number[] = [];
      const store: Store = new Proxy(t.store, {
        get(target, prop, receiver) {
          if (prop === 'insert') {
            return async (...a: Parameters<Store['insert']>) => {
              starts.push(starts.length);
              if (starts.length === 1) await gate;
              await target.insert(...a);
            };
          }
          const v: unknown = Reflect.get(target, prop, receiver);
          return typeof v === 'function' ? (v as (...x: unknown[]) => unknown).bind(target) : v;
        },
      });
      return { store, release, starts };
    };
    const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 50));

    const two = held();
    const sink2 = new CoalescingSink(two.store, { writers: 100, maxRows: 1_000, lingerMs: 0, maxWrites: 2 });
    let firstDone = false;
    const first = sink2.submit(batch('w1', trades(0, 10))).then(() => (firstDone = true));
    await tick();
    await sink2.submit(batch('w2', trades(10, 20))); // stored while the first write is still held
    assert.equal(two.starts.length, 2);
    assert.equal(firstDone, false, 'the first batch is not acknowledged before its own INSERT');
    two.release();
    await first;
    const n = await t.store.query<{ n: string }>('SELECT count() AS n FROM option_trades');
    assert.equal(n[0]?.n, '30');

    const one = held();
    const sink1 = new CoalescingSink(one.store, { writers: 100, maxRows: 1_000, lingerMs: 0, maxWrites: 1 });
    const a = sink1.submit(batch('o1', trades(100, 10)));
    await tick();
    let secondDone = false;
    const b = sink1.submit(batch('o2', trades(110, 10))).then(() => (secondDone = true));
    await tick();
    assert.deepEqual([one.starts.length, secondDone], [1, false], 'the second write waits for the first');
    one.release();
    await Promise.all([a, b]);
    assert.equal(one.starts.length, 2);
  } finally {
    await t.dispose();
  }
});
