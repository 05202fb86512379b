/**
 * The tape tail against the real things: an embedded ClickHouse store (the trades stored by the raw writer's row
 * mapping) and the in-process bus, through the app (`app.inject`). Every /v2/tape answer of an app following the
 * bus is compared with an app reading only the store, page by page.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { optionTradeRow } from '#clickhouse/rows.ts';
import { optionTrade } from '#clickhouse/testing/fixtures.ts';
import { MemoryBus } from '#bus/memory-bus.ts';
import { ensureProductTopics } from '#bus/topics.ts';
import { encodeMarketEvent } from '#schemas/event-codec.ts';
import type { MarketSymbol, OptionTrade, Venue } from '#schemas/events.ts';
import { assertOk } from '../testing/assertions.ts';
import { metricSample as sample } from '../testing/metric-sample.ts';
import { migratedStore, testApp, testClock, userWithKey } from '../testing/harness.ts';
import type { ApiInstance } from '../types.ts';
import type { TapeTail } from './tail-feed.ts';

const NOW = Date.UTC(2026, 2, 10, 12, 0);
const E1 = Date.UTC(2026, 2, 13, 8, 0);
const E2 = Date.UTC(2026, 2, 27, 8, 0);
const VENUES: readonly Venue[] = ['deribit', 'okx', 'bybit', 'binance'];

function trade(i: number, ts: number, symbol: MarketSymbol = 'BTCUSDT'): OptionTrade {
  const venue = VENUES[i % 4] as Venue;
  const expiry = i % 3 === 0 ? E2 : E1;
  const optionType = i % 2 === 0 ? 'call' : 'put';
  return {
    ...optionTrade(0),
    symbol,
    venue,
    ts,
    receivedAt: ts + 5,
    id: `${venue}:${symbol}:${i}`,
    tradeId: String(i),
    instrument: `BTC-X-${i}`,
    expiry,
    optionType,
    side: i % 5 < 2 ? 'sell' : 'buy',
    size: 0.1 + (i % 7),
    premiumUsd: 100 * (i % 50),
    block: i % 9 === 0,
  };
}

interface Page {
  readonly trades: readonly { readonly trade_id: string }[];
  readonly next_cursor: string | null;
}

const reads = (source: 'tail' | 'store'): Promise<number> => sample('gex_api_tape_reads_total', `source="${source}"`);
const repairedBtc = (): Promise<number> => sample('gex_api_tape_tail_repaired_total', 'symbol="BTCUSDT"');

describe('tape tail: bus + store', () => {
  let t: Awaited<ReturnType<typeof migratedStore>>;
  let bus: MemoryBus;
  let withTail: ApiInstance;
  let storeOnly: ApiInstance;
  let tail: TapeTail;
  let key: string;
  // history stored before the API started: 200 BTC trades over the last 3 h (five share one ms), 30 ETH
  const history = [
    ...Array.from({ length: 200 }, (_, i) => trade(i, NOW - 3 * 3_600_000 + (i < 5 ? 0 : i) * 50_000)),
    ...Array.from({ length: 30 }, (_, i) => trade(1_000 + i, NOW - 3_600_000 + i * 1_000, 'ETHUSDT')),
  ];
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

  /** Walks every page of `query` on both apps; asserts equal pages; returns the trade ids. */
  async function walkBoth(query: string): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | null = null;
    for (let n = 0; n < 100; n++) {
      const url: string = `/v2/tape?${query}${cursor === null ? '' : `&cursor=${cursor}`}`;
      const a = assertOk<Page>(await get(withTail, url)).data;
      const b = assertOk<Page>(await get(storeOnly, url)).data;
      assert.deepEqual(a, b, url);
      ids.push(...a.trades.map((r) => r.trade_id));
      cursor = a.next_cursor;
      if (cursor === null) return ids;
    }
    throw new Error('too many pages');
  }

  async function until(what: string, ok: () => boolean): Promise<void> {
    for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok(ok(), what);
  }

  before(async () => {
    t = await migratedStore();
    await store(history, 'history');
    key = await userWithKey(t.store, { userId: 'pro', plan: 'bundle_monthly' });
    bus = new MemoryBus({ clientId: 'tape-tail-test' });
    await ensureProductTopics(bus, 2);
    const clock = testClock(NOW);
    // 120 trades per symbol: the history's oldest BTC trades are outside the tail (their pages come from the store).
    // Reconciliations only when a test asks (tail.sync()): the explicit first sync below cancels the armed one.
    withTail = await testApp(t.store, { tapeTailRows: 120, tapeTailReconcileMs: 3_600_000 }, { clock, tapeBus: bus });
    storeOnly = await testApp(t.store, {}, { clock });
    assert.ok(withTail.gex.tapeTail !== null && storeOnly.gex.tapeTail === null);
    tail = withTail.gex.tapeTail;
    await tail.start(); // the app subscribes in the background: joined before anything is published
    await tail.sync();
    await tail.ready();
  });
  after(async () => {
    await withTail.close();
    await storeOnly.close();
    await bus.close();
    await t.dispose();
  });

  test('after the first load: the newest pages come from memory, equal to the store, in both orders and with filters', async () => {
    const tailBefore = await reads('tail');
    const storeBefore = await reads('store');
    const desc = await walkBoth('symbol=BTCUSDT&limit=13');
    assert.equal(desc.length, 200);
    assert.equal(new Set(desc).size, 200);
    // the first 120 trades' pages (9 pages of 13 and the 10th with the 121st as its +1) from memory, the rest not
    assert.ok((await reads('tail')) - tailBefore >= 9, 'pages inside the tail were served from memory');
    assert.ok((await reads('store')) - storeBefore >= 1, 'pages beyond the tail were read from the store');
    await walkBoth('symbol=BTCUSDT&limit=7&order=asc&from=2026-03-10T10:30:00Z');
    await walkBoth('symbol=BTCUSDT&limit=5&venues=okx,bybit&type=put&min_premium_usd=1500');
    await walkBoth('symbol=BTCUSDT&limit=50&block=exclude&side=buy&expiry=2026-03-27');
    await walkBoth('symbol=ETHUSDT&limit=1000');
    // the five trades sharing one millisecond: ordered by venue then id, as ClickHouse sorts them
    await walkBoth('symbol=BTCUSDT&limit=2&order=asc&from=2026-03-10T09:00:00Z&to=2026-03-10T09:00:00Z');
  });

  test('trades from the bus are served before the store has them; redeliveries once; late trades in order', async () => {
    const fresh = Array.from({ length: 40 }, (_, i) => trade(2_000 + i, NOW - 300_000 + i * 5_000));
    const late = trade(2_100, NOW - 2 * 3_600_000 + 7);
    await publish([...fresh, late]);
    await until(
      'the tail received the bus trades',
      () =>
        tail.page(
          {
            symbol: 'BTCUSDT',
            fromMs: NOW - 400_000,
            toMs: NOW,
            venues: [],
            expiryDates: [],
            type: null,
            side: null,
            minPremiumUsd: 0,
            block: null,
          },
          'desc',
          1000,
          null,
        )?.trades.length === 40,
    );
    const served = assertOk<Page>(await get(withTail, '/v2/tape?symbol=BTCUSDT&limit=5')).data;
    assert.deepEqual(
      served.trades.map((r) => r.trade_id),
      ['2039', '2038', '2037', '2036', '2035'],
      'fresher than the store',
    );
    // the raw writer stores them; a redelivery of 5 of them with another premium (a venue correction) is published
    // and stored again: the later copy wins in both (FINAL keeps the last insert)
    await store([...fresh, late], 'fresh');
    const again = fresh.slice(0, 5).map((x) => ({ ...x, premiumUsd: x.premiumUsd + 0.5 }));
    await publish(again);
    await store(again, 'again');
    const newest = {
      symbol: 'BTCUSDT',
      fromMs: NOW - 400_000,
      toMs: NOW,
      venues: [],
      expiryDates: [],
      type: null,
      side: null,
      minPremiumUsd: 0,
      block: null,
    } as const;
    await until(
      'the redelivery reached the tail',
      () => tail.page(newest, 'asc', 1, null)?.trades[0]?.premium_usd === (fresh[0]?.premiumUsd ?? 0) + 0.5,
    );
    const ids = await walkBoth('symbol=BTCUSDT&limit=17');
    assert.equal(ids.length, 241);
    await walkBoth('symbol=BTCUSDT&limit=9&order=asc&from=2026-03-10T11:00:00Z');
  });

  test('a trade stored but never received (published before the subscription) is added at the next reconciliation', async () => {
    const missed = Array.from({ length: 7 }, (_, i) => trade(3_000 + i, NOW - 60_000 + i * 1_000));
    await store(missed, 'missed');
    const fromTail = assertOk<Page>(await get(withTail, '/v2/tape?symbol=BTCUSDT&limit=20')).data.trades.map((r) => r.trade_id);
    assert.ok(!fromTail.includes('3000'), 'the tail does not have it yet (this is what the reconciliation is for)');
    const repairedBefore = await repairedBtc();
    await tail.sync();
    assert.equal((await repairedBtc()) - repairedBefore, 7);
    const ids = await walkBoth('symbol=BTCUSDT&limit=25');
    assert.equal(ids.length, 248);
    assert.ok(ids.includes('3006'));
  });

  test('an undecodable bus message is skipped and counted; the tail goes on', async () => {
    const skippedBefore = await sample('gex_api_trade_mirror_skipped_total', 'mirror="tape-tail"');
    const good = encodeMarketEvent({ type: 'option_trade', event: trade(4_000, NOW - 1_000) });
    await bus.publish(good.topic, [{ key: good.message.key, value: Buffer.from('not avro') }, good.message]);
    await until(
      'the good trade after the bad one arrived',
      () =>
        tail.page(
          {
            symbol: 'BTCUSDT',
            fromMs: NOW - 2_000,
            toMs: NOW,
            venues: [],
            expiryDates: [],
            type: null,
            side: null,
            minPremiumUsd: 0,
            block: null,
          },
          'desc',
          10,
          null,
        )?.trades[0]?.trade_id === '4000',
    );
    assert.equal((await sample('gex_api_trade_mirror_skipped_total', 'mirror="tape-tail"')) - skippedBefore, 1);
  });
});

test('a bus that refuses the subscription leaves /v2/tape and flow-by-strike on the store; the app starts and closes', async () => {
  const t = await migratedStore();
  const bus = new MemoryBus({ clientId: 'no-topics' }); // no topics created: subscribe rejects
  try {
    await t.store.insert('option_trades', [optionTradeRow(trade(1, NOW - 60_000))], { dedupToken: 'one' });
    const key = await userWithKey(t.store, { userId: 'pro', plan: 'bundle_monthly' });
    const app = await testApp(t.store, {}, { clock: testClock(NOW), tapeBus: bus });
    try {
      await assert.rejects(app.gex.tapeTail?.start() ?? Promise.resolve(), /topic/);
      const r = await app.inject({ method: 'GET', url: '/v2/tape?symbol=BTCUSDT', headers: { 'x-api-key': key } });
      assert.deepEqual(
        assertOk<Page>(r).data.trades.map((x) => x.trade_id),
        ['1'],
      );
      assert.equal(
        app.gex.tapeTail?.page(
          { symbol: 'BTCUSDT', fromMs: 0, toMs: NOW, venues: [], expiryDates: [], type: null, side: null, minPremiumUsd: 0, block: null },
          'desc',
          1,
          null,
        ),
        null,
      );
      const f = await app.inject({ method: 'GET', url: '/v2/tape/flow-by-strike?symbol=BTCUSDT', headers: { 'x-api-key': key } });
      assert.equal(f.statusCode, 200);
    } finally {
      await app.close();
    }
  } finally {
    await bus.close();
    await t.dispose();
  }
});
