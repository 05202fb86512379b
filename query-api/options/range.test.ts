import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { indexPriceRow, linearTradeRow } from '#clickhouse/rows.ts';
import { indexPrice, perpTrade } from '#clickhouse/testing/fixtures.ts';
import { computeRange, PAST_COLUMNS, type RangeData } from '#processors/analytics/range.ts';
import { assertError, assertOk } from '../testing/assertions.ts';
import { migratedStore, testApp, testClock, userWithKey } from '../testing/harness.ts';
import type { ApiInstance } from '../types.ts';

// perp_trades and index_prices keep 365 days: the fixture sits just before the real clock.
const H = 3_600_000;
const L1 = Math.floor(Date.now() / H) * H - 24 * H; // latest 1h row start
const NOW = L1 + 30 * 60_000;
let n = 0;
const trade = (ts: number, price: number) =>
  linearTradeRow({ ...perpTrade, symbol: 'BTCUSDT', ts, receivedAt: ts, price, id: `binance:t${++n}`, tradeId: String(n) });
const dvol = (ts: number, value: number) =>
  indexPriceRow({
    ...indexPrice,
    symbol: 'BTCUSDT',
    kind: 'vol_index',
    name: 'btc_usd',
    ts,
    receivedAt: ts,
    value,
    id: `deribit:vol_index:btc_usd:${ts}`,
  });

describe('/v2/options/range', () => {
  let t: Awaited<ReturnType<typeof migratedStore>>;
  let app: ApiInstance;
  let key: string;
  let evalKey: string;
  before(async () => {
    t = await migratedStore();
    // hour opens 100, 100.05, 103, 103 (first trade of each hour); the last trade of the newest hour is the spot.
    await t.store.insert('perp_trades', [
      trade(L1 - 3 * H + 1_000, 100),
      trade(L1 - 3 * H + 2_000, 100.5),
      trade(L1 - 2 * H + 5, 100.05),
      trade(L1 - H, 103),
      trade(L1 - H + 60_000, 99),
      trade(L1 + 10, 103),
      trade(L1 + 20 * 60_000, 104),
    ]);
    // DVOL: the backfill candle opens at each hour start (50), the live channel later in the hour; 60 is the latest.
    await t.store.insert('index_prices', [
      dvol(L1 - 3 * H, 50),
      dvol(L1 - 2 * H, 50),
      dvol(L1 - H, 50),
      dvol(L1 - H + 1_000, 55),
      dvol(L1, 50),
      dvol(L1 + 25 * 60_000, 60),
    ]);
    key = await userWithKey(t.store, { userId: 'pro', plan: 'bundle_monthly' });
    evalKey = await userWithKey(t.store, { userId: 'eval', plan: 'terminal_yearly', evaluation: true });
    app = await testApp(t.store, { historyDaysStarter: 10 }, { clock: testClock(NOW) });
  });
  after(async () => {
    await app.close();
    await t.dispose();
  });
  const get = (url: string, k = key) => app.inject({ method: 'GET', url, headers: { 'x-api-key': k } });
  const expected = (includePast: boolean, historyFloor: number | null): RangeData =>
    computeRange({
      now: NOW,
      spot: 104,
      dvol: 60,
      historyFloor,
      includePast,
      prices: [100, 100.05, 103, 103].map((value, i) => ({ t: L1 + (i - 3) * H, value })),
      dvols: [0, 1, 2, 3].map((i) => ({ t: L1 + (i - 3) * H, value: 50 })),
    });

  test('bands around the latest spot from the latest DVOL; hour opens feed the out-of-sample record', async () => {
    const { data, meta } = assertOk<RangeData & { symbol: string }>(await get('/v2/options/range?symbol=BTCUSDT'));
    assert.deepEqual(data, { symbol: 'BTCUSDT', ...expected(false, null) });
    assert.equal(data.spot, 104);
    assert.equal(data.dvol, 60);
    assert.deepEqual(data.horizons['1h'].hit_rate, { '68': 0.666667, '90': 0.666667, rows: 3 });
    assert.equal(data.horizons['1h'].past, undefined);
    assert.equal(meta.spot_price, 104);
    assert.deepEqual(meta.source, ['deribit']);
  });

  test('include=past: columns and rows as the spec, the latest row open', async () => {
    const { data } = assertOk<RangeData>(await get('/v2/options/range?symbol=BTCUSDT&include=past'));
    assert.deepEqual(data.horizons, expected(true, null).horizons);
    const h1 = data.horizons['1h'];
    assert.deepEqual(h1.past_columns, PAST_COLUMNS);
    assert.equal(h1.past?.length, 168);
    assert.deepEqual(
      h1.past?.slice(-4).map((r) => [r[0], r[1], r[4], r[5], r[6]]),
      [
        [new Date(L1 - 3 * H).toISOString(), 100, 100.05, true, true],
        [new Date(L1 - 2 * H).toISOString(), 100.05, 103, false, false],
        [new Date(L1 - H).toISOString(), 103, 103, true, true],
        [new Date(L1).toISOString(), 103, null, null, null],
      ],
    );
    assert.equal(data.horizons['4h'].past?.length, 180);
    assert.equal(data.horizons['24h'].past?.length, 182);
  });

  test('evaluation key: past rows start inside the plan history window', async () => {
    const { data, meta } = assertOk<RangeData>(await get('/v2/options/range?symbol=BTCUSDT&include=past', evalKey));
    const floor = NOW - 10 * 86_400_000;
    assert.deepEqual(data.horizons, expected(true, floor).horizons);
    assert.equal(data.horizons['24h'].past?.length, 10);
    assert.equal(data.horizons['1h'].past?.length, 168, 'a week is inside 10 days');
    assert.equal(meta.history_depth_enforced, true);
  });

  test('SOL and HYPE -> 404; bad include or symbol -> 422; a symbol without data -> null bands', async () => {
    assertError(await get('/v2/options/range?symbol=SOLUSDT'), 404, 'NOT_FOUND');
    assertError(await get('/v2/options/range?symbol=HYPEUSDT'), 404, 'NOT_FOUND');
    for (const qs of ['symbol=BTCUSDT&include=future', 'symbol=XRPUSDT', ''])
      assertError(await get(`/v2/options/range?${qs}`), 422, 'VALIDATION_ERROR');
    const eth = assertOk<RangeData>(await get('/v2/options/range?symbol=ETHUSDT')).data;
    assert.equal(eth.horizons['4h'].bands, null);
    assert.equal(eth.spot, null);
  });
});
