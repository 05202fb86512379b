import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { optionTradeRow } from '#clickhouse/rows.ts';
import { optionTrade } from '#clickhouse/testing/fixtures.ts';
import type { OptionTrade, TakerSide, Venue } from '#schemas/events.ts';
import type { StrikeHeatRow } from '#processors/analytics/strike-heat.ts';
import { assertError, assertOk } from '../testing/assertions.ts';
import { migratedStore, testApp, testClock, userWithKey } from '../testing/harness.ts';
import type { ApiInstance } from '../types.ts';

const NOW = Date.UTC(2026, 2, 10, 12, 0);
const H = 3_600_000;
let n = 0;
const tr = (venue: Venue, strike: number, side: TakerSide, premiumUsd: number, ago: number): OptionTrade => {
  n++;
  return {
    ...optionTrade(0),
    venue,
    strike,
    side,
    premiumUsd,
    size: premiumUsd / 1_000,
    ts: NOW - ago,
    id: `${venue}:h:${n}`,
    tradeId: String(n),
  };
};

describe('/v2/tape/strike-heat', () => {
  let t: Awaited<ReturnType<typeof migratedStore>>;
  let app: ApiInstance;
  let key: string;
  before(async () => {
    t = await migratedStore();
    const trades = [
      tr('deribit', 100_000, 'buy', 50_000, 1 * H),
      tr('okx', 100_000, 'buy', 10_000, 2 * H),
      tr('deribit', 100_000, 'sell', 20_000, 3 * H),
      tr('deribit', 95_000, 'sell', 45_000, 4 * H),
      tr('deribit', 105_000, 'buy', 500, 5 * H), // below min_premium_usd=1000
      tr('deribit', 110_000, 'buy', 90_000, 30 * H), // outside 24 h, inside 48 h
    ];
    await t.store.insert('option_trades', trades.map(optionTradeRow), { dedupToken: 'a' });
    await t.store.insert('option_trades', trades.slice(0, 1).map(optionTradeRow), { dedupToken: 'b' }); // redelivered
    key = await userWithKey(t.store, { userId: 'pro', plan: 'bundle_monthly' });
    app = await testApp(t.store, {}, { clock: testClock(NOW) });
  });
  after(async () => {
    await app.close();
    await t.dispose();
  });
  const get = (url: string) => app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
  const heat = async (qs: string) =>
    assertOk<{ strikes: StrikeHeatRow[]; hours: number }>(await get(`/v2/tape/strike-heat?symbol=BTCUSDT&${qs}`));

  test('per strike premium by taker side, ranked by |net|; window, minimum premium and venue filter', async () => {
    const { data, meta } = await heat('min_premium_usd=1000');
    assert.equal(data.hours, 24);
    assert.deepEqual(meta.source, ['deribit', 'okx']);
    // 100k: buy 50,000 (once, redelivered copy collapses) + 10,000, sell 20,000 → net +40,000; 95k: net −45,000
    assert.deepEqual(data.strikes, [
      {
        strike: 95_000,
        buy_premium_usd: 0,
        sell_premium_usd: 45_000,
        net_premium_usd: -45_000,
        total_premium_usd: 45_000,
        trades: 1,
        buy_trades: 0,
        sell_trades: 1,
      },
      {
        strike: 100_000,
        buy_premium_usd: 60_000,
        sell_premium_usd: 20_000,
        net_premium_usd: 40_000,
        total_premium_usd: 80_000,
        trades: 3,
        buy_trades: 2,
        sell_trades: 1,
      },
    ]);
    assert.deepEqual(
      (await heat('')).data.strikes.map((r) => r.strike),
      [95_000, 100_000, 105_000],
    );
    assert.deepEqual(
      (await heat('hours=48&limit=5')).data.strikes.map((r) => [r.strike, r.net_premium_usd]),
      [
        [110_000, 90_000],
        [95_000, -45_000],
        [100_000, 40_000],
        [105_000, 500],
      ],
    );
    const deribit = await heat('venues=deribit&min_premium_usd=1000');
    assert.deepEqual(
      deribit.data.strikes.map((r) => [r.strike, r.net_premium_usd]),
      [
        [95_000, -45_000],
        [100_000, 30_000],
      ],
    );
    assert.deepEqual(deribit.meta.exchanges_filtered, ['deribit']);
    assert.deepEqual((await heat('venues=bybit')).data.strikes, []);
  });

  test('404 for SOLUSDT and HYPEUSDT, 422 for out-of-range parameters', async () => {
    assertError(await get('/v2/tape/strike-heat?symbol=SOLUSDT'), 404, 'NOT_FOUND');
    assertError(await get('/v2/tape/strike-heat?symbol=HYPEUSDT'), 404, 'NOT_FOUND');
    for (const qs of ['hours=0', 'hours=169', 'limit=4', 'limit=201', 'min_premium_usd=-1', 'min_premium_usd=abc', 'venues=nope']) {
      assertError(await get(`/v2/tape/strike-heat?symbol=BTCUSDT&${qs}`), 422, 'VALIDATION_ERROR');
    }
  });
});
