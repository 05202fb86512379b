/**
 * The replay thread on a chDB store seeded through the processor write path (testing/gex-fixture.ts): its batches are
 * byte for byte those made on this thread (tape, levels with and without a venue filter, chain; NDJSON and WebSocket
 * documents, small store pages); a store error reaches the replay as the store's own error class; a thread that ends
 * mid-replay fails that replay, leaves the store usable (the thread never loads the engine) and the next replay runs
 * on a new thread; close fails what is open and refuses new replays; once started, V8's platform workers run at the
 * replay thread's niceness and, unless told otherwise, V8's allocation-site pretenuring is stopped; concurrent replays run
 * one store read at a time.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Worker } from 'node:worker_threads';
import { getPriority } from 'node:os';
import { StoreUnavailableError, type Store } from '#clickhouse/store.ts';
import { columnOf, textAt } from '#clickhouse/row-binary.ts';
import { msColumn } from '#clickhouse/epoch-ms.ts';
import type { QueryParams } from '#clickhouse/params.ts';
import { optionTradeRow } from '#clickhouse/rows.ts';
import { optionTrade } from '#clickhouse/testing/fixtures.ts';
import { withDeadline } from '#platform/deadline.ts';
import { A, C, seedGex } from '../../testing/gex-fixture.ts';
import { migratedStore } from '../../testing/harness.ts';
import type { ReplayFormat } from '../batch.ts';
import { inThreadProducer, type ReplayProducer } from '../producer.ts';
import { parseReplayRequest, type ReplayRequest } from '../request.ts';
import { replayMetrics } from '../metrics.ts';
import { taskNice } from '#platform/threads/proc-stat.ts';
import { allocationSitePretenuringStopped } from '#platform/v8-pretenuring.ts';
import { processTasks, v8PoolSize, v8WorkerThreads } from '#platform/threads/v8-workers.ts';
import type { OwnerMessage } from './protocol.ts';
import {
  REPLAY_BATCHES_AHEAD,
  REPLAY_NICE,
  REPLAY_OLD_GENERATION_MB,
  REPLAY_READS,
  REPLAY_YOUNG_GENERATION_MB,
  ReplayThread,
} from './replay-thread.ts';

const CHANNELS = 'tape.BTCUSDT,levels.BTCUSDT,levels.BTCUSDT.deribit,chain.BTCUSDT';

function requestOf(channels: string, fromMs: number, toMs: number): ReplayRequest {
  const parsed = parseReplayRequest({ channels, from: String(fromMs), to: String(toMs) }, C + 60_000);
  assert.ok(parsed.ok, JSON.stringify(parsed));
  return parsed.request;
}

/** Every batch of a replay, its arrays as plain arrays (comparable across threads). */
async function collect(p: ReplayProducer, request: ReplayRequest, format: ReplayFormat, page: number) {
  const out: { bytes: string; ends: number[]; atMs: number[]; channel: number[]; seq: number[] }[] = [];
  for await (const b of p.batches(request, format, page))
    out.push({
      bytes: Buffer.from(b.text, 'latin1').toString('utf8'),
      ends: [...b.ends],
      atMs: [...b.atMs],
      channel: [...b.channel],
      seq: [...b.seq],
    });
  return out;
}

/** V8's platform worker threads of this process (at least one found). */
function v8Workers(): number[] {
  const workers = v8WorkerThreads(processTasks(), process.pid, v8PoolSize());
  assert.ok(workers.length >= 1, 'platform workers found');
  return workers;
}

/** A short levels replay: enough to start a replay thread. */
const SHORT_LEVELS = (): ReplayRequest => requestOf('levels.BTCUSDT', A - 60_000, C + 5_000);

const LINUX_ONLY = process.platform !== 'linux' ? 'Linux only (/proc, per-thread niceness)' : false;

const workerOf = (t: ReplayThread): Worker | null => (t as unknown as { worker: Worker | null }).worker;

describe('replay thread', () => {
  let t: Awaited<ReturnType<typeof migratedStore>>;
  let thread: ReplayThread;

  before(async () => {
    t = await migratedStore();
    await seedGex(t.store);
    // 20,000 more trades in the window's first hour: a tape replay of many batches.
    const from = A - 3 * 3600_000;
    await t.store.insert(
      'option_trades',
      Array.from({ length: 20_000 }, (_, i) =>
        optionTradeRow({ ...optionTrade(i), ts: from + i * 100, receivedAt: from + i * 100, id: `rt:${i}`, tradeId: `rt${i}` }),
      ),
    );
    thread = new ReplayThread(t.store);
  });
  after(async () => {
    await thread.close();
    await t.dispose();
  });

  // First of the file: no replay thread of this process has stopped V8's pretenuring yet (once per process).
  test('a thread with stopPretenuring false leaves V8 its allocation-site pretenuring; one with it true stops it when it starts', async () => {
    assert.equal(allocationSitePretenuringStopped(), false);
    for (const stopPretenuring of [false, true]) {
      const own = new ReplayThread(t.store, { lowerV8Workers: false, stopPretenuring });
      try {
        assert.ok((await collect(own, SHORT_LEVELS(), 'ndjson', 300)).length > 0);
        assert.equal(allocationSitePretenuringStopped(), stopPretenuring);
      } finally {
        await own.close();
      }
    }
  });

  // No replay thread of this process has lowered the V8 workers yet (once per process).
  test(
    'with lowerV8Workers false the V8 platform workers keep their priority when the thread starts',
    { timeout: 60_000, skip: LINUX_ONLY },
    async () => {
      const workers = v8Workers();
      const before = workers.map((tid) => taskNice(tid));
      assert.ok(!before.includes(REPLAY_NICE), `workers start below ${REPLAY_NICE}: ${before.join(',')}`);
      const keeping = new ReplayThread(t.store, { lowerV8Workers: false, stopPretenuring: false });
      try {
        assert.ok((await collect(keeping, SHORT_LEVELS(), 'ndjson', 300)).length > 0);
        assert.deepEqual(
          workers.map((tid) => taskNice(tid)),
          before,
        );
      } finally {
        await keeping.close();
      }
    },
  );

  test('its batches are the bytes made on this thread (NDJSON and WebSocket, small pages)', { timeout: 120_000 }, async () => {
    const request = requestOf(CHANNELS, A - 3 * 3600_000, C + 5_000);
    for (const format of ['ndjson', 'ws'] as const) {
      for (const page of [300, 5_000]) {
        const here = await collect(inThreadProducer(t.store), request, format, page);
        const there = await collect(thread, request, format, page);
        assert.deepEqual(there, here, `${format}, page ${page}`);
        const messages = here.reduce((n, b) => n + b.ends.length, 0);
        assert.ok(messages > 20_000, `${messages} messages`);
        // Every channel is in the stream.
        assert.deepEqual([...new Set(here.flatMap((b) => b.channel))].sort(), [0, 1, 2, 3]);
      }
    }
  });

  test(
    "once a replay started the thread, V8's platform workers (its garbage collection) run at REPLAY_NICE, the event loop as before",
    { timeout: 60_000, skip: LINUX_ONLY },
    async () => {
      const workers = v8Workers();
      assert.ok((await collect(thread, SHORT_LEVELS(), 'ndjson', 300)).length > 0);
      for (const tid of workers) assert.equal(taskNice(tid), REPLAY_NICE, `task ${tid}`);
      assert.equal(taskNice(process.pid), getPriority(process.pid));
      assert.notEqual(taskNice(process.pid), REPLAY_NICE);
    },
  );

  test(
    'the thread runs with a young generation of REPLAY_YOUNG_GENERATION_MB (smaller than V8 gives a thread) and an old one of REPLAY_OLD_GENERATION_MB',
    { timeout: 60_000 },
    async () => {
      assert.ok((await collect(thread, SHORT_LEVELS(), 'ndjson', 300)).length > 0);
      assert.equal(workerOf(thread)?.resourceLimits?.maxYoungGenerationSizeMb, REPLAY_YOUNG_GENERATION_MB);
      assert.ok(REPLAY_YOUNG_GENERATION_MB < 48, "V8's own: 48 MB on Node 20, 96 MB on Node 26");
      assert.equal(workerOf(thread)?.resourceLimits?.maxOldGenerationSizeMb, REPLAY_OLD_GENERATION_MB);
      assert.ok(REPLAY_OLD_GENERATION_MB < 2_048, 'below 2 GiB V8 grows the heap by 1.3-2x between full collections, not 4x');
    },
  );

  /**
   * The replay thread's store with its owner's side on this thread: each statement answered by the test's store (as
   * the store being down while `down()` says so); `seen` gets every answer before the thread's store does.
   */
  async function wiredPortStore(opts: { readonly down?: () => boolean; readonly seen?: (m: OwnerMessage) => void } = {}) {
    const { MessageChannel } = await import('node:worker_threads');
    const { portStore } = await import('./port-store.ts');
    const ch = new MessageChannel();
    const store = portStore(ch.port1, 'embedded');
    ch.port1.on('message', (m: OwnerMessage) => {
      opts.seen?.(m);
      store.answer(m);
    });
    ch.port2.on('message', (m: { qid: number; sql: string; params: QueryParams }) => {
      const error = (name: string, message: string): void =>
        ch.port2.postMessage({ kind: 'store-error', qid: m.qid, error: { name, message } });
      if (opts.down?.() === true) error('StoreUnavailableError', 'down');
      else
        void t.store.queryBytes(m.sql, m.params).then(
          (bytes) => ch.port2.postMessage({ kind: 'store-answer', qid: m.qid, bytes }),
          (err: unknown) => error('Error', String(err)),
        );
    });
    return { store, close: () => ch.port1.close() };
  }

  test("the thread's store answers ping through the owner's store", { timeout: 60_000 }, async () => {
    let down = false;
    const { store, close } = await wiredPortStore({ down: () => down });
    try {
      assert.equal(await store.ping(), true);
      down = true;
      assert.equal(await store.ping(), false);
    } finally {
      close();
    }
  });

  test(
    "the thread's store releases each result once decoded (transfer(0), or on Node 20 a message to a closed port)",
    { timeout: 60_000 },
    async () => {
      const arrived: Uint8Array[] = [];
      const { store, close } = await wiredPortStore({ seen: (m) => void (m.kind === 'store-answer' && arrived.push(m.bytes)) });
      try {
        const sql = `SELECT venue, ${msColumn('computed_at', 't')}, levels_pack FROM gex_snapshots WHERE symbol = {s:String} ORDER BY venue, t`;
        const columns = await store.queryColumns(sql, { s: 'BTCUSDT' });
        assert.deepEqual(columns, await t.store.queryColumns(sql, { s: 'BTCUSDT' }));
        assert.ok(columns.rows > 0, 'rows read');
        const rows = await store.query<{ n: string }>('SELECT toString(count()) AS n FROM gex_snapshots');
        assert.ok(Number(rows[0]?.n) > 0);
        assert.equal(arrived.length, 2);
        for (const bytes of arrived) assert.equal(bytes.byteLength, 0, 'released');
      } finally {
        close();
      }
    },
  );

  test("the thread's store keeps a read with views until releaseColumns, then frees it", { timeout: 60_000 }, async () => {
    const arrived: Uint8Array[] = [];
    const { store, close } = await wiredPortStore({ seen: (m) => void (m.kind === 'store-answer' && arrived.push(m.bytes)) });
    try {
      const sql = `SELECT venue, ${msColumn('computed_at', 't')}, levels_pack FROM gex_snapshots WHERE symbol = {s:String} ORDER BY venue, t`;
      const viewed = await store.queryColumns(sql, { s: 'BTCUSDT' }, { views: ['levels_pack'] });
      const strings = await t.store.queryColumns(sql, { s: 'BTCUSDT' });
      assert.ok(viewed.rows > 0 && viewed.rows === strings.rows, `${viewed.rows} rows`);
      assert.equal(arrived.length, 1);
      assert.ok((arrived[0]?.byteLength ?? 0) > 0, 'held while the columns are in use');
      const pack = columnOf(viewed, 'levels_pack', 'bytes', 'test');
      const expected = columnOf(strings, 'levels_pack', 'string', 'test').values;
      for (let i = 0; i < viewed.rows; i++) assert.equal(textAt(pack, i), expected[i]);
      store.releaseColumns(viewed);
      assert.equal(arrived[0]?.byteLength, 0, 'released');
    } finally {
      close();
    }
  });

  test(
    'the replays run REPLAY_READS store read at a time, all together: three at once give the bytes of three alone',
    { timeout: 120_000 },
    async () => {
      let running = 0;
      let most = 0;
      let reads = 0;
      const counting: Store = {
        ...t.store,
        queryBytes: async (sql: string, params?: QueryParams) => {
          running++;
          reads++;
          most = Math.max(most, running);
          try {
            return await t.store.queryBytes(sql, params);
          } finally {
            running--;
          }
        },
      };
      const own = new ReplayThread(counting);
      try {
        const request = requestOf(CHANNELS, A - 3 * 3600_000, C + 5_000);
        const [a, b, c] = await Promise.all([0, 1, 2].map(() => collect(own, request, 'ndjson', 300)));
        const alone = await collect(inThreadProducer(t.store), request, 'ndjson', 300);
        assert.deepEqual([a, b, c], [alone, alone, alone]);
        assert.ok(reads > 60, `${reads} reads`);
        assert.equal(most, REPLAY_READS);
      } finally {
        await own.close();
      }
    },
  );

  test(
    'the thread makes REPLAY_BATCHES_AHEAD batches ahead of a replay alone, shared by the open replays (at least one each)',
    { timeout: 90_000 },
    async () => {
      assert.equal(REPLAY_BATCHES_AHEAD, 4);
      const own = new ReplayThread(t.store, { lowerV8Workers: false, stopPretenuring: false });
      const request = requestOf('tape.BTCUSDT', A - 3 * 3600_000, C + 5_000);
      // Batch messages arrived, by replay in the order the replays were opened.
      const arrived: number[] = [];
      const ids: number[] = [];
      const replays: AsyncGenerator<unknown>[] = [];
      const taken: number[] = [];
      const open = async (): Promise<void> => {
        const batches = own.batches(request, 'ws', 5_000);
        replays.push(batches);
        taken.push(0);
        arrived.push(0);
        // The first pull starts the thread (synchronously, before the pull's first wait): every batch is counted.
        const first = batches.next();
        const worker = workerOf(own);
        assert.ok(worker !== null);
        if (replays.length === 1)
          worker.on('message', (m: { kind: string; id: number }) => {
            if (m.kind !== 'batch') return;
            if (!ids.includes(m.id)) ids.push(m.id);
            arrived[ids.indexOf(m.id)]! += 1;
          });
        assert.equal((await first).done, false);
        taken[replays.length - 1] = 1;
      };
      const take = async (r: number): Promise<void> => {
        assert.equal((await replays[r]!.next()).done, false);
        taken[r]! += 1;
      };
      /** Batches made ahead of each replay (arrived, not taken), once none more arrives for 300 ms. */
      const ahead = async (): Promise<number[]> => {
        let seen = '';
        while (seen !== JSON.stringify(arrived)) {
          seen = JSON.stringify(arrived);
          await new Promise((r) => setTimeout(r, 300));
        }
        return arrived.map((n, i) => n - taken[i]!);
      };
      try {
        await open();
        assert.deepEqual(await ahead(), [4], 'alone: 4 ahead');
        for (let k = 0; k < 3; k++) {
          await take(0);
          assert.deepEqual(await ahead(), [4], `alone, ${k + 1} more taken: one more made for each`);
        }
        // A second replay: 2 each. The first keeps the 4 it has until it takes them down to its share.
        await open();
        assert.deepEqual(await ahead(), [4, 2]);
        for (let k = 0; k < 4; k++) {
          await take(0);
          await take(1);
        }
        assert.deepEqual(await ahead(), [2, 2], 'two open: 2 each');
        // A third: 1 each (4 / 3, at least one).
        await open();
        for (let k = 0; k < 3; k++) for (let r = 0; r < 3; r++) await take(r);
        assert.deepEqual(await ahead(), [1, 1, 1], 'three open: 1 each');
      } finally {
        for (const r of replays) await r.return(undefined);
        await own.close();
      }
    },
  );

  test('a store error reaches the replay as the store error class', { timeout: 60_000 }, async () => {
    const down: Store = {
      ...t.store,
      queryBytes: () => Promise.reject(new StoreUnavailableError('store down (test)', 'query')),
    };
    const failing = new ReplayThread(down);
    try {
      await assert.rejects(collect(failing, requestOf('tape.BTCUSDT', A - 3_600_000, C), 'ndjson', 100), (err: unknown) => {
        assert.ok(err instanceof StoreUnavailableError, String(err));
        assert.match((err as Error).message, /store down \(test\)/);
        return true;
      });
    } finally {
      await failing.close();
    }
  });

  test(
    'a thread that ends mid-replay fails it; the store still answers; the next replay runs on a new thread',
    { timeout: 120_000 },
    async () => {
      const request = requestOf('tape.BTCUSDT,levels.BTCUSDT', A - 3 * 3600_000, C + 5_000);
      const batches = thread.batches(request, 'ndjson', 100);
      const first = await batches.next();
      assert.equal(first.done, false);
      const worker = workerOf(thread);
      assert.ok(worker !== null);
      const ends = async (): Promise<number> => (await replayMetrics.threadEnds.get()).values[0]?.value ?? 0;
      const endsBefore = await ends();
      await worker.terminate();
      await assert.rejects(
        (async () => {
          for (;;) if ((await batches.next()).done === true) return;
        })(),
        /replay thread exited/,
      );
      assert.equal(await ends(), endsBefore + 1, 'gex_replay_thread_ends_total counts it');
      // A thread that had loaded the embedded engine would leave it hanging here once ended.
      const rows = await withDeadline(
        t.store.query<{ n: string }>('SELECT count() AS n FROM option_trades'),
        5_000,
        () => new Error('the store did not answer after the thread ended'),
      );
      assert.ok(Number(rows[0]?.n) > 0);
      const again = await collect(thread, request, 'ndjson', 5_000);
      const here = await collect(inThreadProducer(t.store), request, 'ndjson', 5_000);
      assert.deepEqual(again, here);
      assert.notEqual(workerOf(thread), worker);
    },
  );

  test('close fails the open replays and refuses new ones', { timeout: 60_000 }, async () => {
    const own = new ReplayThread(t.store);
    const request = requestOf('tape.BTCUSDT', A - 3 * 3600_000, C + 5_000);
    const batches = own.batches(request, 'ws', 100);
    assert.equal((await batches.next()).done, false);
    await own.close();
    await assert.rejects(
      (async () => {
        for (;;) if ((await batches.next()).done === true) return;
      })(),
      /closed/,
    );
    await assert.rejects(own.batches(request, 'ws').next(), /closed/);
  });
});
