import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { metricsRegistry } from '#platform/metrics/registry.ts';
import { isStoreUnavailable } from './errors.ts';
import { migrate } from './migrate.ts';
import { optionTradeRow } from './rows.ts';
import { createStore, type Store } from './store.ts';
import { optionTrade } from './testing/fixtures.ts';
import { tempDataPath } from './testing/temp-store.ts';

const SLEEP = 'SELECT sleep({s:Float64}) AS z, {tag:String} AS tag';

async function waiting(): Promise<number> {
  return (await metricsRegistry.getSingleMetric('gex_store_waiting_reads')?.get())?.values[0]?.value ?? Number.NaN;
}

describe("the embedded store's read sessions", () => {
  let dataPath: string;
  let store: Store;
  before(async () => {
    dataPath = tempDataPath();
    store = await createStore({ dataPath, readSessions: 2 });
    await migrate(store);
  });
  after(async () => {
    await store.close(); // again: closing is idempotent
    rmSync(dataPath, { recursive: true, force: true });
  });

  test('two parameterised reads run at once; a third waits for a session (gauge), in arrival order', async () => {
    const start = performance.now();
    const ends: string[] = [];
    const reads = ['a', 'b', 'c'].map((tag) =>
      store.query<{ tag: string }>(SLEEP, { s: 0.4, tag }).then((rows) => {
        ends.push(rows[0]?.tag ?? '');
        return performance.now() - start;
      }),
    );
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(await waiting(), 1);
    const [a, b, c] = await Promise.all(reads);
    assert.equal(await waiting(), 0);
    // One at a time, the second would end at >= 800 ms; the third starts when one of the first two ends.
    assert.ok((a ?? 0) < 750 && (b ?? 0) < 750, `first two ended at ${a?.toFixed(0)} and ${b?.toFixed(0)} ms`);
    assert.ok((c ?? 0) >= 800, `third ended at ${c?.toFixed(0)} ms`);
    assert.equal(ends[2], 'c');
  });

  test('a read runs while an insert holds the store session, and sees every insert that resolved before it', async () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => optionTradeRow(optionTrade(i)));
    let inserted = false;
    const insert = store.insert('option_trades', rows, { dedupToken: 'read-sessions-1' }).then(() => void (inserted = true));
    const [r] = await store.query<{ one: number }>('SELECT {x:UInt8} AS one', { x: 1 });
    assert.deepEqual(r, { one: 1 });
    // On the store's session the read would have waited for the insert (tens of ms for 20,000 rows).
    assert.equal(inserted, false);
    await insert;
    const [n] = await store.query<{ n: string }>('SELECT count() AS n FROM option_trades WHERE id LIKE {p:String}', { p: '%' });
    assert.equal(n?.n, '20000');
  });

  // Last: closes the suite's store (one data directory per process).
  test('reads after close, and reads waiting at close, fail as an unavailable store', async () => {
    const running = ['a', 'b'].map((tag) => store.query(SLEEP, { s: 0.3, tag }));
    const queued = store.query(SLEEP, { s: 0.3, tag: 'queued' });
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(await waiting(), 1);
    await store.close();
    const settled = await Promise.allSettled([...running, queued]);
    // The running reads end (chDB closes their sessions after them); the waiting one never starts.
    assert.deepEqual(
      settled.map((r) => r.status),
      ['fulfilled', 'fulfilled', 'rejected'],
    );
    const last = settled[2];
    assert.ok(last?.status === 'rejected' && isStoreUnavailable(last.reason), String(last?.status === 'rejected' && last.reason));
    await assert.rejects(store.query('SELECT 1'), (e: unknown) => isStoreUnavailable(e));
    assert.equal(await waiting(), 0);
  });
});
