/**
 * GET /v2/replay over a real socket: the route reads the store only as fast as the client takes the stream. 12 tape
 * pages of stored trades (12 x REPLAY_PAGE) to a client that stops reading after the headers: the store is asked
 * for a few pages only (what fills the socket buffers), then for every page once the client reads again. The
 * store is the chDB store itself, its page reads (queryColumns, or queryBytes from the replay thread) counted on the
 * way through.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { get, type IncomingMessage } from 'node:http';
import { optionTradeRow } from '#clickhouse/rows.ts';
import type { Store } from '#clickhouse/store.ts';
import { optionTrade } from '#clickhouse/testing/fixtures.ts';
import { freePort, migratedStore, testApp, testClock, userWithKey } from '../testing/harness.ts';
import { REPLAY_PAGE } from './sources.ts';

const N = 12 * REPLAY_PAGE;
const T0 = Date.UTC(2026, 9, 1);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test(
  'replay backpressure: a client that stops reading stops the store reads; reading again finishes the stream',
  { timeout: 600_000 },
  async () => {
    const t = await migratedStore();
    for (let b = 0; b < N; b += 20_000)
      await t.store.insert(
        'option_trades',
        Array.from({ length: 20_000 }, (_, j) => {
          const i = b + j;
          return optionTradeRow({ ...optionTrade(i), ts: T0 + i * 10, receivedAt: T0 + i * 10, id: `bp:${i}`, tradeId: `bp${i}` });
        }),
      );
    let pages = 0;
    const counted = new Proxy(t.store, {
      get(target, prop, receiver) {
        const v: unknown = Reflect.get(target, prop, receiver);
        // A page read: queryColumns on this thread, or the Native bytes the replay thread asks for.
        if ((prop === 'queryColumns' || prop === 'queryBytes') && typeof v === 'function')
          return (...args: unknown[]) => {
            if (String(args[0]).includes('FROM option_trades')) pages++;
            return (v as (...a: unknown[]) => unknown).apply(target, args);
          };
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    }) as Store;
    const key = await userWithKey(t.store, { userId: 'bp', plan: 'enterprise' });
    const app = await testApp(counted, {}, { clock: testClock(T0 + 86_400_000) });
    try {
      const port = await freePort();
      await app.listen({ port, host: '127.0.0.1' });
      const path = `/v2/replay?channels=tape.BTCUSDT&from=${T0}&to=${T0 + N * 10}`;
      const res = await new Promise<IncomingMessage>((resolve, reject) =>
        get({ host: '127.0.0.1', port, path, headers: { 'x-api-key': key } }, resolve).on('error', reject),
      );
      res.pause();
      assert.equal(res.statusCode, 200);
      // Let the server fill whatever buffers it can; the reads must stop far before the 12 pages.
      let stalled = -1;
      for (let i = 0; i < 20 && stalled !== pages; i++) {
        stalled = pages;
        await sleep(500);
      }
      const whilePaused = pages;
      assert.ok(whilePaused < N / REPLAY_PAGE / 2, `${whilePaused} pages read while the client was not reading`);
      let bytes = 0;
      let lines = 0;
      res.on('data', (b: Buffer) => {
        bytes += b.length;
        for (const c of b) if (c === 10) lines++;
      });
      res.resume();
      await new Promise((r) => res.on('end', r));
      assert.equal(lines, N + 1);
      // One read a page (a page reads one row more: the last knows it is the last), and one more: the first read's
      // window (replay/tape-window.ts, 60 s) holds 6,000 of these trades, less than a page.
      assert.equal(pages, N / REPLAY_PAGE + 1, 'every page read once, and the first window');
      process.stderr.write(
        `replay backpressure: ${whilePaused} of ${pages} pages read while paused; ${(bytes / 1e6).toFixed(1)} MB streamed\n`,
      );
    } finally {
      await app.close();
      await t.dispose();
    }
  },
);
