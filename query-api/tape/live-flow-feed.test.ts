/**
 * The live flow book against the real things: an embedded ClickHouse store (option_trades and its live view) and
 * the in-process bus, through the app. Every /v2/tape/flow-by-strike answer of an app following the bus equals an
 * app reading the store. Sizes and premiums are exact in binary, so sums in any order are equal.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { optionTradeRow } from '#clickhouse/rows.ts';
import { optionTrade } from '#clickhouse/testing/fixtures.ts';
import { MemoryBus } from '#bus/memory-bus.ts';
import { ensureProductTopics } from '#bus/topics.ts';
import { encodeMarketEvent } from '#schemas/event-codec.ts';
import type { OptionTrade, Venue } from '#schemas/events.ts';
import { assertOk } from '../testing/assertions.ts';
import { metricSample as sample } from '../testing/metric-sample.ts';
import { migratedStore, testApp, testClock, userWithKey, type TestClock } from '../testing/harness.ts';
import type { ApiInstance } from '../types.ts';
import { LiveFlow } from './live-flow-feed.ts';

// Real dates: option_trades_unexpired deletes a contract's rows a day after its expiry (TTL), so the data must be live now.
const DAY = 86_400_000;
const TODAY = Math.floor(Date.now() / DAY) * DAY;
// The tests' clock starts at 00:30 UTC today, whatever the time of day: its advances (hours at most) never reach the next
// day, where today's 08:00 expiry would no longer be live (a run starting at 23:55 saw 3 repaired trades, not 5).
const NOW = TODAY + 30 * 60_000;
/** Today 08:00 (live all day), in 3 and 17 days, yesterday 08:00 (expired). */
const EXPIRIES = [TODAY + 8 * 3_600_000, TODAY + 3 * DAY + 8 * 3_600_000, TODAY + 17 * DAY + 8 * 3_600_000, TODAY - DAY + 8 * 3_600_000];
const dateOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const VENUES: readonly Venue[] = ['deribit', 'okx', 'bybit', 'binance'];

function trade(i: number, symbol: 'BTCUSDT' | 'ETHUSDT' = 'BTCUSDT'): OptionTrade {
  const venue = VENUES[i % 4] as Venue;
  const ts = NOW - 5 * 86_400_000 + i * 60_000;
  return {
    ...optionTrade(0),
    symbol,
    venue,
    ts,
    receivedAt: ts + 5,
    id: `${venue}:${symbol}:${i}`,
    tradeId: String(i),
    expiry: EXPIRIES[i % 4] as number,
    strike: 90_000 + 5_000 * (i % 5),
    optionType: i % 2 === 0 ? 'call' : 'put',
    side: i % 3 === 0 ? 'sell' : 'buy',
    size: 0.25 * (1 + (i % 7)),
    premiumUsd: 100 * (i % 40),
  };
}

describe('live flow book: bus + store', () => {
  let t: Awaited<ReturnType<typeof migratedStore>>;
  let bus: MemoryBus;
  let withBook: ApiInstance;
  let storeOnly: ApiInstance;
  let flow: LiveFlow;
  let clock: TestClock;
  let key: string;
  const store = (trades: readonly OptionTrade[], token: string) =>
    t.store.insert('option_trades', trades.map(optionTradeRow), { dedupToken: token });
  const publish = async (trades: readonly OptionTrade[]): Promise<void> => {
    const encoded = trades.map((x) => encodeMarketEvent({ type: 'option_trade', event: x }));
    await bus.publish(
      encoded[0]?.topic ?? '',
      encoded.map((e) => e.message),
    );
  };
  const get = (app: ApiInstance, url: string) => app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
  const QUERIES = [
    'symbol=BTCUSDT&include=by_venue',
    'symbol=BTCUSDT&min_premium_usd=1500',
    'symbol=BTCUSDT&venues=okx,bybit&include=by_venue',
    `symbol=BTCUSDT&expiries=${dateOf(EXPIRIES[0] as number)},${dateOf(EXPIRIES[2] as number)}`,
    'symbol=ETHUSDT',
  ];
  /** Every query on both apps (after the 90 s answer cache of both has expired): equal data. */
  async function compareAll(): Promise<void> {
    clock.advance(91_000);
    for (const q of QUERIES) {
      const a = await get(withBook, `/v2/tape/flow-by-strike?${q}`);
      const b = await get(storeOnly, `/v2/tape/flow-by-strike?${q}`);
      assert.equal(a.statusCode, b.statusCode, q);
      if (a.statusCode !== 200) continue;
      assert.deepEqual(assertOk<unknown>(a).data, assertOk<unknown>(b).data, q);
      assert.deepEqual(assertOk<unknown>(a).meta.source, assertOk<unknown>(b).meta.source, q);
    }
  }
  const bookReads = (): Promise<number> => sample('gex_api_live_flow_reads_total', 'source="book"');

  before(async () => {
    t = await migratedStore();
    await store(
      [...Array.from({ length: 400 }, (_, i) => trade(i)), ...Array.from({ length: 60 }, (_, i) => trade(1_000 + i, 'ETHUSDT'))],
      'history',
    );
    key = await userWithKey(t.store, { userId: 'pro', plan: 'bundle_monthly' });
    bus = new MemoryBus({ clientId: 'live-flow-test' });
    await ensureProductTopics(bus, 2);
    clock = testClock(NOW);
    withBook = await testApp(t.store, {}, { clock, tapeBus: bus });
    storeOnly = await testApp(t.store, {}, { clock });
    assert.ok(withBook.gex.liveFlow !== null && storeOnly.gex.liveFlow === null);
    flow = withBook.gex.liveFlow;
    await flow.start(); // the app subscribes in the background: joined before anything is published
    await flow.sync();
  });
  after(async () => {
    await withBook.close();
    await storeOnly.close();
    await bus.close();
    await t.dispose();
  });

  test('after the first load: every answer from memory equals the store read', async () => {
    const before = await bookReads();
    await compareAll();
    assert.equal((await bookReads()) - before, QUERIES.length, 'each answer was computed from the book');
    const d = assertOk<{ strikes: unknown[] }>(await get(withBook, '/v2/tape/flow-by-strike?symbol=BTCUSDT')).data;
    assert.ok(d.strikes.length > 0);
  });

  test('bus trades, redeliveries with a later copy, then a stored trade the book never received', async () => {
    const fresh = Array.from({ length: 50 }, (_, i) => ({ ...trade(2_000 + i), ts: NOW - 100_000 + i * 1_000 }));
    await publish(fresh);
    await store(fresh, 'fresh');
    // a redelivery of 5 stored trades with another size (the later copy wins in the store's FINAL and here)
    const again = fresh.slice(0, 5).map((x) => ({ ...x, size: x.size + 0.5 }));
    await publish(again);
    await store(again, 'again');
    clock.advance(91_000);
    for (let i = 0; i < 200; i++) {
      const a = assertOk<unknown>(await get(withBook, '/v2/tape/flow-by-strike?symbol=BTCUSDT&min_premium_usd=0.5')).data;
      const b = assertOk<unknown>(await get(storeOnly, '/v2/tape/flow-by-strike?symbol=BTCUSDT&min_premium_usd=0.5')).data;
      if (JSON.stringify(a) === JSON.stringify(b)) break;
      clock.advance(91_000);
      await new Promise((r) => setTimeout(r, 10));
    }
    await compareAll();
    // stored only (published before the subscription): missing until the next reconciliation, then added
    const missed = Array.from({ length: 6 }, (_, i) => ({ ...trade(3_000 + i), ts: clock() - 10_000 }));
    await store(missed, 'missed');
    clock.advance(91_000);
    const q = '/v2/tape/flow-by-strike?symbol=BTCUSDT';
    assert.notDeepEqual(
      assertOk<unknown>(await get(withBook, q)).data,
      assertOk<unknown>(await get(storeOnly, q)).data,
      'the book lacks them before the reconciliation',
    );
    const repaired = await sample('gex_api_live_flow_repaired_total', 'symbol="BTCUSDT"');
    await flow.sync();
    // trade 3003 expired yesterday (index 3 % 4): not live, not in the store's live read
    assert.equal((await sample('gex_api_live_flow_repaired_total', 'symbol="BTCUSDT"')) - repaired, 5);
    await compareAll();
  });

  test('a full read in pages of 50 rows (10 pages) holds what the one-page read holds; a book over its capacity reads the store', async () => {
    const paged = new LiveFlow({
      bus,
      store: t.store,
      symbols: ['BTCUSDT', 'ETHUSDT'],
      capacity: 100_000,
      reconcileMs: 3_600_000,
      clock,
      pageRows: 50,
    });
    const small = new LiveFlow({ bus, store: t.store, symbols: ['BTCUSDT'], capacity: 100, reconcileMs: 3_600_000, clock });
    try {
      await paged.start();
      await small.start();
      await paged.sync();
      await small.sync();
      await flow.sync();
      const q = { nowMs: clock(), expiryDates: [], minPremiumUsd: 0, venues: [] };
      for (const symbol of ['BTCUSDT', 'ETHUSDT'] as const) {
        const a = paged.cells(symbol, q);
        assert.ok(a !== null && a.length > 0, symbol);
        // cells come in the order the book holds its rows (the pages' order here): compared as sets
        const sorted = (cells: readonly object[] | null): string[] => (cells ?? []).map((c) => JSON.stringify(c)).sort();
        assert.deepEqual(sorted(a), sorted(flow.cells(symbol, q)), symbol);
      }
      assert.deepEqual(paged.heldTrades(), flow.heldTrades(), 'the same trades held');
      assert.equal(small.cells('BTCUSDT', q), null, 'over its capacity: the store answers');
      await small.sync(); // full, nothing expired: no read, still full
      assert.equal(small.cells('BTCUSDT', q), null);
    } finally {
      await paged.stop();
      await small.stop();
    }
  });

  test('a new UTC day: the contracts that expired are dropped and the answers still equal the store', async () => {
    clock.set(TODAY + DAY + 9 * 3_600_000);
    await flow.sync();
    // the query naming yesterday's expiry is a 422 on both; the others equal
    await compareAll();
    const d = assertOk<{ strikes: unknown[] }>(await get(withBook, '/v2/tape/flow-by-strike?symbol=BTCUSDT')).data;
    assert.ok(d.strikes.length > 0);
  });
});
