import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { optionTickerRow } from '#clickhouse/rows.ts';
import { optionTicker } from '#clickhouse/testing/fixtures.ts';
import type { OptionType, Venue } from '#schemas/events.ts';
import { assertError, assertOk } from '../testing/assertions.ts';
import { migratedStore, testApp, testClock, userWithKey } from '../testing/harness.ts';
import type { ApiInstance } from '../types.ts';

// option_tickers has a 90-day TTL (rows older than that are dropped), so the fixture is dated near the real clock:
// "day 10" is yesterday UTC, "day 9" the day before.
const DAY = 86_400_000;
const Y = Math.floor(Date.now() / DAY) * DAY - DAY;
const at = (h: number, m: number, s = 0, day = 10): number => Y + (day - 10) * DAY + ((h * 60 + m) * 60 + s) * 1000;
const iso = (h: number, m: number, day = 10): string => new Date(at(h, m, 0, day)).toISOString();
const NOW = at(12, 2, 30);
const FAR = Y + 17 * DAY;
let n = 0;
const tick = (venue: Venue, instrument: string, optionType: OptionType, openInterest: number, ts: number, expiry = FAR) => {
  n++;
  return optionTickerRow({
    ...optionTicker,
    symbol: 'BTCUSDT',
    venue,
    instrument,
    optionType,
    openInterest,
    ts,
    expiry,
    id: `${venue}:${instrument}:${n}`,
  });
};
type Point = {
  t: string;
  ratio: number | null;
  call_oi: number;
  put_oi: number;
  exchange_breakdown?: { venue: string; call_oi: number; put_oi: number }[];
};

describe('/v2/options/pcr', () => {
  let t: Awaited<ReturnType<typeof migratedStore>>;
  let app: ApiInstance;
  let key: string;
  before(async () => {
    t = await migratedStore();
    await t.store.insert('option_tickers', [
      tick('deribit', 'C1', 'call', 50, at(20, 0, 0, 9)),
      tick('deribit', 'P1', 'put', 25, at(20, 1, 0, 9)), // day-9 20:05 point: 0.5
      tick('deribit', 'C1', 'call', 100, at(11, 50, 10)),
      tick('deribit', 'C1', 'call', 120, at(11, 52)), // last of the bucket counts
      tick('deribit', 'P1', 'put', 60, at(11, 51)),
      tick('okx', 'C2', 'call', 80, at(11, 53)),
      tick('okx', 'P2', 'put', 100, at(11, 54)), // 11:55 point: (60 + 100) / (120 + 80) = 0.8
      tick('deribit', 'P1', 'put', 300, at(11, 56)),
      tick('deribit', 'C1', 'call', 100, at(11, 57)),
      tick('deribit', 'PX', 'put', 999, at(11, 56), at(11, 58)), // expires before the point (12:00): excluded
      tick('deribit', 'P1', 'put', 5_000, at(12, 1)), // after the last whole bucket
    ]);
    key = await userWithKey(t.store, { userId: 'pro', plan: 'bundle_monthly' });
    app = await testApp(t.store, {}, { clock: testClock(NOW) });
  });
  after(async () => {
    await app.close();
    await t.dispose();
  });
  const get = (url: string) => app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });

  test('intraday 5-minute points with exchange breakdown; points_available / points_returned', async () => {
    const { data, meta } = assertOk<{ points: Point[]; granularity: string }>(
      await get('/v2/options/pcr?symbol=BTCUSDT&days=1&include=exchange_breakdown'),
    );
    assert.deepEqual(
      data.points.map((p) => [p.t, p.ratio]),
      [
        [iso(20, 5, 9), 0.5],
        [iso(11, 55), 0.8],
        [iso(12, 0), 3],
      ],
    );
    assert.deepEqual(data.points[1]?.exchange_breakdown, [
      { venue: 'deribit', call_oi: 120, put_oi: 60 },
      { venue: 'okx', call_oi: 80, put_oi: 100 },
    ]);
    assert.deepEqual(meta.extra, {
      granularity: 'intraday',
      aggregation: { venues: 'sum', interval: '5m', method: 'last' },
      points_available: 3,
      points_returned: 3,
    });
    const plain = assertOk<{ points: Point[] }>(await get('/v2/options/pcr?symbol=BTCUSDT&days=1')).data.points[0];
    assert.equal(plain?.exchange_breakdown, undefined);
    assert.equal(Object.hasOwn(plain ?? {}, 'exchanges'), false, 'the contract name only');
  });

  test('daily: the last point of each UTC day, reported as daily', async () => {
    const { data, meta } = assertOk<{ points: Point[] }>(await get('/v2/options/pcr?symbol=BTCUSDT&days=2&granularity=daily'));
    assert.deepEqual(
      data.points.map((p) => [p.t, p.ratio, p.call_oi, p.put_oi]),
      [
        [iso(20, 5, 9), 0.5, 50, 25],
        [iso(12, 0), 3, 100, 300],
      ],
    );
    assert.equal((meta.extra as { granularity: string }).granularity, 'daily', 'a real daily series, never intraday-fallback');
    assert.deepEqual((meta.extra as { aggregation: unknown }).aggregation, {
      venues: 'sum',
      interval: '1d',
      method: 'last_point_per_utc_day',
    });
  });

  test('an empty symbol has no points; 422 on bad parameters', async () => {
    assert.deepEqual(assertOk<{ points: Point[] }>(await get('/v2/options/pcr?symbol=SOLUSDT')).data.points, []);
    for (const qs of ['days=0', 'days=366', 'granularity=weekly', 'include=everything'])
      assertError(await get(`/v2/options/pcr?symbol=BTCUSDT&${qs}`), 422, 'VALIDATION_ERROR');
  });
});
