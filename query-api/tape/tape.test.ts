import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { optionTradeRow } from '#clickhouse/rows.ts';
import { optionTrade } from '#clickhouse/testing/fixtures.ts';
import type { OptionTrade, Venue } from '#schemas/events.ts';
import { encodeCursor } from './cursor.ts';
import { tapeRow } from './tape-row.ts';
import { assertError, assertOk } from '../testing/assertions.ts';
import { migratedStore, testApp, testClock, userWithKey } from '../testing/harness.ts';
import type { ApiInstance } from '../types.ts';

const NOW = Date.UTC(2026, 2, 10, 12, 0);
const E1 = Date.UTC(2026, 2, 13, 8, 0);
const E2 = Date.UTC(2026, 2, 27, 8, 0);

interface Trade {
  time: string;
  venue: string;
  instrument: string;
  expiry: string;
  strike: number;
  type: string;
  side: string;
  size: number;
  premium_usd: number;
  block: boolean;
  trade_id: string;
}
interface Page {
  order: string;
  count: number;
  trades: Trade[];
  next_cursor: string | null;
}

/** 30 trades over the last 3 h (two venues, two expiries, both types and sides, every 5th a block). */
function fixture(): OptionTrade[] {
  return Array.from({ length: 30 }, (_, i) => {
    const venue: Venue = i % 3 === 0 ? 'okx' : 'deribit';
    const expiry = i % 4 === 0 ? E2 : E1;
    const optionType = i % 2 === 0 ? 'call' : 'put';
    const instrument = `BTC-${expiry === E1 ? '13MAR26' : '27MAR26'}-${90_000 + (i % 3) * 5_000}-${optionType === 'call' ? 'C' : 'P'}`;
    // trades 10 and 11 share one millisecond (ordered by venue, then id)
    const ts = NOW - 3 * 3_600_000 + (i === 11 ? 10 : i) * 360_000 + 17;
    return {
      ...optionTrade(0),
      venue,
      ts,
      receivedAt: ts + 5,
      id: `${venue}:${instrument}:${100 + i}`,
      tradeId: String(100 + i),
      instrument,
      strike: 90_000 + (i % 3) * 5_000,
      expiry,
      optionType,
      side: i % 5 < 2 ? 'sell' : 'buy',
      size: 0.5 + i,
      priceUsd: 1_000,
      premiumUsd: 1_000 * (0.5 + i),
      block: i % 5 === 4,
    };
  });
}

describe('/v2/tape', () => {
  let t: Awaited<ReturnType<typeof migratedStore>>;
  let app: ApiInstance;
  let key: string;
  let evalKey: string;
  const trades = fixture();
  /** Newest first, ties by venue then id descending (the served order). */
  const desc = [...trades].sort((a, b) => b.ts - a.ts || (a.venue < b.venue ? 1 : a.venue > b.venue ? -1 : a.id < b.id ? 1 : -1));

  before(async () => {
    t = await migratedStore();
    await t.store.insert('option_trades', trades.slice(0, 20).map(optionTradeRow), { dedupToken: 'a' });
    // trades 15-19 redelivered in another batch: served once
    await t.store.insert('option_trades', trades.slice(15).map(optionTradeRow), { dedupToken: 'b' });
    key = await userWithKey(t.store, { userId: 'pro', plan: 'bundle_monthly' });
    evalKey = await userWithKey(t.store, { userId: 'eval', plan: 'api_monthly', evaluation: true });
    app = await testApp(t.store, {}, { clock: testClock(NOW) });
  });
  after(async () => {
    await app.close();
    await t.dispose();
  });
  const get = (url: string, k = key) => app.inject({ method: 'GET', url, headers: { 'x-api-key': k } });

  test('a REST row is the WebSocket tape row of the same trade (one row shape: tape/tape-row.ts)', async () => {
    const { data } = assertOk<{ trades: unknown[] }>(await get('/v2/tape?symbol=BTCUSDT&limit=1000'));
    assert.equal(data.trades.length, 30);
    assert.deepEqual(data.trades, desc.map(tapeRow));
  });

  test('default: newest first over the last 24 h, one row per trade, the documented row', async () => {
    const { data, meta } = assertOk<Page & { from: string; to: string }>(await get('/v2/tape?symbol=BTCUSDT'));
    assert.equal(data.count, 30);
    assert.deepEqual(
      data.trades.map((r) => r.trade_id),
      desc.map((x) => x.tradeId),
    );
    assert.equal(data.next_cursor, null);
    assert.deepEqual([data.from, data.to], [new Date(NOW - 86_400_000).toISOString(), new Date(NOW).toISOString()]);
    assert.deepEqual(meta.source, ['deribit', 'okx']);
    // trade 29: deribit, E1 (29 % 4 ≠ 0), put, 29 % 5 = 4 → buy and block, size 29.5, premium 29,500
    assert.deepEqual(data.trades[0], {
      time: new Date(NOW - 3 * 3_600_000 + 29 * 360_000 + 17).toISOString(),
      venue: 'deribit',
      symbol: 'BTCUSDT',
      instrument: 'BTC-13MAR26-100000-P',
      expiry: new Date(E1).toISOString(),
      strike: 100_000,
      type: 'put',
      side: 'buy',
      size: 29.5,
      price: 0.0123,
      price_currency: 'BTC',
      price_usd: 1_000,
      premium_usd: 29_500,
      iv: 0.5512,
      index_price: 84895.12,
      block: true,
      trade_id: '129',
    });
  });

  test('cursor pagination: pages of 7 tile the listing in both orders, stable while new trades arrive', async () => {
    for (const order of ['desc', 'asc'] as const) {
      const ids: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const url: string = `/v2/tape?symbol=BTCUSDT&limit=7&order=${order}${cursor === null ? '' : `&cursor=${cursor}`}`;
        const { data }: { data: Page } = assertOk<Page>(await get(url));
        ids.push(...data.trades.map((r) => r.trade_id));
        cursor = data.next_cursor;
        pages++;
        if (pages === 2 && order === 'desc') {
          // a newer trade arriving mid-pagination does not shift the following pages
          const late = { ...optionTrade(0), ts: NOW - 1_000, id: 'deribit:late:1', tradeId: 'late', expiry: E1 };
          await t.store.insert('option_trades', [optionTradeRow(late)], { dedupToken: 'late' });
        }
      } while (cursor !== null);
      assert.equal(pages, 5);
      const expected = desc.map((x) => x.tradeId);
      // desc started before the late trade arrived; asc (run after) ends with it
      assert.deepEqual(ids, order === 'desc' ? expected : [...expected].reverse().concat(['late']));
    }
  });

  test('filters: venues, expiry date, type, taker side, minimum premium, block only / excluded, window', async () => {
    const ids = async (qs: string): Promise<string[]> =>
      assertOk<Page>(await get(`/v2/tape?symbol=BTCUSDT&limit=1000&to=${new Date(NOW - 60_000).toISOString()}&${qs}`)).data.trades.map(
        (r) => r.trade_id,
      );
    const want = (p: (x: OptionTrade, i: number) => boolean): string[] =>
      desc.filter((x) => p(x, Number(x.tradeId) - 100)).map((x) => x.tradeId);
    assert.deepEqual(
      await ids('venues=okx'),
      want((_, i) => i % 3 === 0),
    );
    assert.deepEqual(
      await ids('expiry=2026-03-27'),
      want((_, i) => i % 4 === 0),
    );
    assert.deepEqual(
      await ids('type=put&side=buy'),
      want((_, i) => i % 2 === 1 && i % 5 >= 2),
    );
    assert.deepEqual(
      await ids('min_premium_usd=20000'),
      want((_, i) => 1_000 * (0.5 + i) >= 20_000),
    );
    assert.deepEqual(
      await ids('block=only'),
      want((_, i) => i % 5 === 4),
    );
    assert.deepEqual(
      await ids('block=exclude&venues=deribit,okx'),
      want((_, i) => i % 5 !== 4),
    );
    assert.deepEqual(
      await ids(`from=${new Date(NOW - 3_600_000).toISOString()}`),
      want((x) => x.ts >= NOW - 3_600_000),
    );
    assert.equal(assertOk<Page>(await get('/v2/tape?symbol=ETHUSDT')).data.count, 0);
  });

  test('/v2/tape/recent: the same rows as /v2/tape?limit=N&order=desc', async () => {
    const recent = assertOk<Page>(await get('/v2/tape/recent?symbol=BTCUSDT&limit=5')).data;
    const tape = assertOk<Page>(await get('/v2/tape?symbol=BTCUSDT&limit=5&order=desc')).data;
    assert.deepEqual(recent, tape);
    assert.equal(recent.count, 5);
    assert.equal(assertOk<Page>(await get('/v2/tape/recent?symbol=SOLUSDT')).data.count, 0);
  });

  test('422 on every invalid parameter, with details.errors', async () => {
    const ascCursor = encodeCursor({ ts: NOW, venue: 'deribit', id: 'x', order: 'asc' });
    for (const [qs, name] of [
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['order=up', 'order'],
      ['cursor=not*a*cursor', 'cursor'],
      [`cursor=${ascCursor}`, 'cursor'],
      ['from=2026-03-10T13:00:00Z&to=2026-03-10T12:00:00Z', 'from'],
      ['from=yesterday', 'from'],
      ['venues=deribit,nope', 'venues'],
      ['expiry=2026-02-30', 'expiry'],
      ['type=future', 'type'],
      ['side=long', 'side'],
      ['min_premium_usd=-1', 'min_premium_usd'],
      ['block=yes', 'block'],
    ] as const) {
      const body = assertError(await get(`/v2/tape?symbol=BTCUSDT&${qs}`), 422, 'VALIDATION_ERROR');
      const errors = body.error.details?.errors as { name: string }[];
      assert.ok(
        errors.some((e) => e.name === name),
        `${qs}: ${JSON.stringify(errors)}`,
      );
    }
    assertError(await get('/v2/tape'), 422, 'VALIDATION_ERROR');
    assertError(await get('/v2/tape/recent?symbol=BTCUSDT&limit=1001'), 422, 'VALIDATION_ERROR');
    assertError(await get('/v2/tape/nope?symbol=BTCUSDT'), 404, 'NOT_FOUND');
  });

  test('history window: an evaluation key reaching beyond its plan is served the allowed window', async () => {
    const from = new Date(NOW - 400 * 86_400_000).toISOString();
    const { data, meta } = assertOk<Page & { from: string }>(await get(`/v2/tape?symbol=BTCUSDT&from=${from}`, evalKey));
    assert.equal(meta.history_depth_enforced, true);
    const clamp = (meta.extra as { history_clamp: { served_from: string; requested_from: string } }).history_clamp;
    assert.equal(clamp.requested_from, from);
    assert.equal(data.from, clamp.served_from);
    assert.ok(Date.parse(data.from) > Date.parse(from));
  });
});
