import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { optionTradeRow } from '#clickhouse/rows.ts';
import { optionTrade } from '#clickhouse/testing/fixtures.ts';
import type { FlowByStrike } from '#processors/analytics/flow-by-strike.ts';
import type { OptionTrade, OptionType, TakerSide, Venue } from '#schemas/events.ts';
import { assertError, assertOk } from '../testing/assertions.ts';
import { migratedStore, testApp, testClock, userWithKey } from '../testing/harness.ts';
import type { ApiInstance } from '../types.ts';

// Days of the real calendar: option_trades_unexpired keeps a trade until a day after its expiry by the store's clock.
const DAY = 86_400_000;
const DAY0 = Math.floor(Date.now() / DAY) * DAY;
const NOW = DAY0 + 12 * 3_600_000;
const TODAY_0800 = DAY0 + 8 * 3_600_000; // expired 4 h before NOW, but its expiry date is today: included
const YESTERDAY = TODAY_0800 - DAY; // excluded
const E1 = TODAY_0800 + 3 * DAY;
const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const token = (ms: number): string =>
  `${new Date(ms).getUTCDate()}${MONTHS[new Date(ms).getUTCMonth()]}${String(new Date(ms).getUTCFullYear() % 100).padStart(2, '0')}`;
let n = 0;
const tr = (
  venue: Venue,
  expiry: number,
  strike: number,
  optionType: OptionType,
  side: TakerSide,
  size: number,
  ago = 3_600_000,
): OptionTrade => {
  n++;
  return {
    ...optionTrade(0),
    venue,
    expiry,
    strike,
    optionType,
    side,
    size,
    premiumUsd: size * 1_000,
    ts: NOW - ago,
    id: `${venue}:f:${n}`,
    tradeId: String(n),
  };
};
type Data = FlowByStrike & { expiries: string[] };

describe('/v2/tape/flow-by-strike', () => {
  let t: Awaited<ReturnType<typeof migratedStore>>;
  let app: ApiInstance;
  let key: string;
  const clock = testClock(NOW);
  before(async () => {
    t = await migratedStore();
    const trades = [
      tr('deribit', E1, 100_000, 'call', 'buy', 10),
      tr('deribit', E1, 100_000, 'call', 'sell', 2),
      tr('okx', E1, 100_000, 'put', 'sell', 5),
      tr('okx', TODAY_0800, 100_000, 'put', 'buy', 1),
      tr('deribit', TODAY_0800, 90_000, 'put', 'buy', 3, 40 * 86_400_000), // cumulative, not a rolling window
      tr('deribit', YESTERDAY, 90_000, 'call', 'buy', 50),
      tr('deribit', E1, 110_000, 'call', 'sell', 0.5),
    ];
    await t.store.insert('option_trades', trades.map(optionTradeRow), { dedupToken: 'a' });
    await t.store.insert('option_trades', trades.slice(0, 2).map(optionTradeRow), { dedupToken: 'b' }); // redelivered
    key = await userWithKey(t.store, { userId: 'pro', plan: 'bundle_monthly' });
    app = await testApp(t.store, {}, { clock });
  });
  after(async () => {
    await app.close();
    await t.dispose();
  });
  const get = (url: string) => app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });

  test('quadrants per strike on contracts expiring today or later, by_venue, venue disagreement in body and meta', async () => {
    const { data, meta } = assertOk<Data>(await get('/v2/tape/flow-by-strike?include=by_venue'));
    assert.deepEqual(data.expiries, []);
    assert.deepEqual(
      data.strikes.map((s) => s.strike),
      [90_000, 100_000, 110_000],
    );
    assert.deepEqual(data.strikes[1], {
      strike: 100_000,
      call_buy: { size: 10, premium_usd: 10_000, trades: 1 },
      call_sell: { size: 2, premium_usd: 2_000, trades: 1 },
      put_buy: { size: 1, premium_usd: 1_000, trades: 1 },
      put_sell: { size: 5, premium_usd: 5_000, trades: 1 },
    });
    assert.deepEqual(data.strikes[0]?.put_buy, { size: 3, premium_usd: 3_000, trades: 1 });
    assert.deepEqual(data.strikes[0]?.call_buy, { size: 0, premium_usd: 0, trades: 0 }); // yesterday's expiry excluded
    // 100k: deribit 2 − 10 = −8, okx 5 − 1 = +4 → the one compared strike disagrees
    assert.deepEqual(data.by_venue?.[1], [
      { venue: 'deribit', bought: 10, sold: 2, net_size: -8 },
      { venue: 'okx', bought: 1, sold: 5, net_size: 4 },
    ]);
    assert.deepEqual(data.venue_disagreement, { strikes_compared: 1, strikes_disagreeing: 1, share: 1 });
    assert.deepEqual((meta.extra as Record<string, unknown>).venue_disagreement, data.venue_disagreement);
    assert.equal(assertOk<Data>(await get('/v2/tape/flow-by-strike?symbol=BTCUSDT')).data.by_venue, undefined);
  });

  test('expiry, expiries (precedence), venues and minimum premium filters', async () => {
    const strikes = async (qs: string) => assertOk<Data>(await get(`/v2/tape/flow-by-strike?${qs}`)).data;
    assert.deepEqual(
      (await strikes(`expiry=${day(E1)}`)).strikes.map((s) => s.strike),
      [100_000, 110_000],
    );
    const both = await strikes(`expiry=${day(E1)}&expiries=${day(NOW)}`);
    assert.deepEqual([both.expiries, both.strikes.map((s) => s.strike)], [[day(NOW)], [90_000, 100_000]]);
    assert.deepEqual(
      (await strikes('venues=okx')).strikes.map((s) => s.strike),
      [100_000],
    );
    assert.deepEqual(
      (await strikes('min_premium_usd=2500')).strikes.map((s) => [s.strike, s.call_buy.size, s.put_sell.size]),
      [
        [90_000, 0, 0],
        [100_000, 10, 5],
      ],
    );
  });

  test('cached about 90 s', async () => {
    const before = assertOk<Data>(await get('/v2/tape/flow-by-strike?venues=deribit')).data;
    await t.store.insert('option_trades', [optionTradeRow(tr('deribit', E1, 120_000, 'call', 'buy', 1, 1_000))], { dedupToken: 'c' });
    clock.advance(60_000);
    assert.deepEqual(assertOk<Data>(await get('/v2/tape/flow-by-strike?venues=deribit')).data, before);
    clock.advance(31_000);
    const after = assertOk<Data>(await get('/v2/tape/flow-by-strike?venues=deribit'));
    assert.deepEqual(
      after.data.strikes.map((s) => s.strike),
      [90_000, 100_000, 110_000, 120_000],
    );
    assert.equal(after.meta.freshness_seconds, 0);
    clock.set(NOW);
  });

  test('404 for SOLUSDT and HYPEUSDT; 422 for a past expiry and bad parameters', async () => {
    assertError(await get('/v2/tape/flow-by-strike?symbol=SOLUSDT'), 404, 'NOT_FOUND');
    assertError(await get('/v2/tape/flow-by-strike?symbol=HYPEUSDT'), 404, 'NOT_FOUND');
    for (const qs of [
      `expiry=${day(YESTERDAY)}`,
      `expiries=${day(E1)},${day(NOW - 9 * DAY)}`,
      `expiry=${token(E1)}`,
      'venues=bullish',
      'min_premium_usd=-5',
      'include=everything',
    ]) {
      assertError(await get(`/v2/tape/flow-by-strike?${qs}`), 422, 'VALIDATION_ERROR');
    }
  });
});
