import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { optionTradeRow } from '#clickhouse/rows.ts';
import { optionTrade } from '#clickhouse/testing/fixtures.ts';
import type { TidePoint } from '#processors/analytics/premium-tide.ts';
import type { OptionTrade, OptionType, TakerSide, Venue } from '#schemas/events.ts';
import { assertError, assertOk } from '../testing/assertions.ts';
import { migratedStore, testApp, testClock, userWithKey } from '../testing/harness.ts';
import type { ApiInstance } from '../types.ts';

const NOW = Date.UTC(2026, 2, 10, 12, 2, 30);
const at = (h: number, m: number, day = 10): number => Date.UTC(2026, 2, day, h, m);
const NEAR = at(8, 0, 11); // within 24 h
const FAR = at(8, 0, 13); // within 7 days
let n = 0;
const tr = (
  venue: Venue,
  ts: number,
  expiry: number,
  optionType: OptionType,
  side: TakerSide,
  premiumUsd: number,
  size: number,
): OptionTrade => {
  n++;
  return {
    ...optionTrade(0),
    venue,
    ts,
    expiry,
    optionType,
    side,
    premiumUsd,
    size,
    indexPrice: 100_000,
    id: `${venue}:t:${n}`,
    tradeId: String(n),
  };
};
type Data = { points: (Omit<TidePoint, 't'> & { t: string })[]; interval_minutes: number; from: string };

describe('/v2/options/premium-tide', () => {
  let t: Awaited<ReturnType<typeof migratedStore>>;
  let app: ApiInstance;
  let key: string;
  before(async () => {
    t = await migratedStore();
    const trades = [
      tr('deribit', at(11, 1), NEAR, 'call', 'buy', 1_000, 0.5),
      tr('deribit', at(11, 3), NEAR, 'call', 'sell', 300, 0.2),
      tr('deribit', at(11, 4), NEAR, 'put', 'buy', 200, 0.1),
      tr('deribit', at(11, 7), NEAR, 'put', 'sell', 500, 0.3),
      tr('okx', at(11, 8), NEAR, 'call', 'buy', 9_999, 1), // other venue: not in the tide
      tr('deribit', at(11, 30), FAR, 'call', 'buy', 2_000, 1), // weekly only
      tr('deribit', at(23, 0, 9), NEAR, 'put', 'buy', 100, 0.1), // yesterday: weekly only
    ];
    await t.store.insert('option_trades', trades.map(optionTradeRow), { dedupToken: 'a' });
    key = await userWithKey(t.store, { userId: 'pro', plan: 'bundle_monthly' });
    app = await testApp(t.store, {}, { clock: testClock(NOW) });
  });
  after(async () => {
    await app.close();
    await t.dispose();
  });
  const get = (url: string) => app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });

  test("0dte: today's session in 5-minute points, deribit only, contracts expiring within 24 h", async () => {
    const { data } = assertOk<Data>(await get('/v2/options/premium-tide?symbol=BTCUSDT'));
    assert.equal(data.interval_minutes, 5);
    assert.equal(data.from, '2026-03-10T00:00:00.000Z');
    assert.equal(data.points.length, 145); // 00:00 … 12:00
    const p1100 = data.points.find((p) => p.t === '2026-03-10T11:00:00.000Z');
    // call 1,000 − 300 = 700 (notional 0.7 × 100,000), put +200 (10,000) → net 500
    assert.deepEqual(p1100, {
      t: '2026-03-10T11:00:00.000Z',
      call_net_premium_usd: 700,
      put_net_premium_usd: 200,
      net_premium_usd: 500,
      call_notional_usd: 70_000,
      put_notional_usd: 10_000,
      cum_call_net_premium_usd: 700,
      cum_put_net_premium_usd: 200,
      cum_net_premium_usd: 500,
    });
    const last = data.points[144];
    assert.deepEqual(
      [last?.t, last?.cum_call_net_premium_usd, last?.cum_put_net_premium_usd, last?.cum_net_premium_usd],
      ['2026-03-10T12:00:00.000Z', 700, -300, 1_000],
    );
  });

  test('weekly: the last 3 days hourly, contracts expiring within 7 days', async () => {
    const { data } = assertOk<Data>(await get('/v2/options/premium-tide?symbol=BTCUSDT&horizon=weekly'));
    assert.equal(data.interval_minutes, 60);
    assert.equal(data.points.length, 73);
    const last = data.points[72];
    // calls 700 + 2,000; puts 200 − 500 + 100 = −200 → net 2,900
    assert.deepEqual([last?.cum_call_net_premium_usd, last?.cum_put_net_premium_usd, last?.cum_net_premium_usd], [2_700, -200, 2_900]);
  });

  test('422 for a bad horizon or symbol; an empty symbol gives zero points', async () => {
    assertError(await get('/v2/options/premium-tide?symbol=BTCUSDT&horizon=monthly'), 422, 'VALIDATION_ERROR');
    assertError(await get('/v2/options/premium-tide?symbol=DOGE'), 422, 'VALIDATION_ERROR');
    const eth = assertOk<Data>(await get('/v2/options/premium-tide?symbol=ETHUSDT')).data;
    assert.ok(eth.points.every((p) => p.cum_net_premium_usd === 0 && p.call_notional_usd === 0));
  });
});
