import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '#clickhouse/store.ts';
import { MIN, seedMarket, T0, trade } from './testing/fixtures.ts';
import { assertError, assertOk } from '../testing/assertions.ts';
import { header, migratedStore, testApp, testClock, userWithKey } from '../testing/harness.ts';
import type { ApiInstance } from '../types.ts';

const NOW = T0 + 29 * MIN + 30_000; // 00:29:30 UTC: the last 1m bucket is 00:29

type Columns = Record<string, (number | null)[]>;
interface Bundle {
  timestamps: number[];
  candles?: Columns | null;
  open_interest?: Columns | null;
  funding?: Columns | null;
  cvd_perp?: Columns | null;
  cvd_spot?: Columns | null;
  liquidations?: Columns | null;
}
type Extra = Record<string, unknown> & { coverage: Record<string, number>; errors?: Record<string, string> };

const close = (a: number | null | undefined, b: number, msg?: string) => {
  assert.ok(a !== null && a !== undefined && Math.abs(a - b) < 1e-12, `${msg ?? ''} expected ${b}, got ${a}`);
};
/** The non-null entries of a column as {index: value}. */
const filled = (col: (number | null)[] | undefined): Record<number, number> =>
  Object.fromEntries((col ?? []).flatMap((v, i) => (v === null ? [] : [[i, v]])));

describe('/v2/market', () => {
  let t: Awaited<ReturnType<typeof migratedStore>>;
  let store: Store;
  let app: ApiInstance;
  let key: string;
  let evalKey: string;
  const clock = testClock(NOW);

  before(async () => {
    t = await migratedStore();
    store = t.store;
    await seedMarket(store);
    key = await userWithKey(store, { userId: 'pro', plan: 'bundle_monthly' });
    evalKey = await userWithKey(store, { userId: 'eval', plan: 'terminal_yearly', evaluation: true });
    app = await testApp(store, { marketCacheMs: 0 }, { clock }); // cache behaviour: the describe below
  });
  after(async () => {
    await app.close();
    await t.dispose();
  });

  const get = (url: string, k = key) => app.inject({ method: 'GET', url, headers: { 'x-api-key': k } });
  const bundle = async (qs: string) => {
    const { data, meta } = assertOk<Bundle>(await get(`/v2/market/bundle?symbol=BTCUSDT&${qs}`));
    return { data, meta, extra: meta['extra'] as Extra };
  };

  test('1m buckets: edges on exact minutes, nulls for empty buckets, OHLCV with the buy/sell split', async () => {
    const { data, meta, extra } = await bundle('interval=1m&hours=1');
    assert.equal(data.timestamps.length, 60);
    assert.equal(data.timestamps[0], T0 - 30 * MIN);
    assert.equal(data.timestamps[59], T0 + 29 * MIN);
    const i0 = 30; // 00:00
    assert.equal(data.timestamps[i0], T0);
    const c = data.candles as Columns;
    // 23:59: only A (23:59:59.999). 00:00: B (at 00:00:00.000, first) C D (59.999, last). 00:01 none. 00:02: E. 00:05: F.
    assert.deepEqual(filled(c['open']), { 29: 100, 30: 104, 32: 96, 35: 100 });
    assert.deepEqual(filled(c['close']), { 29: 100, 30: 102, 32: 96, 35: 100 });
    assert.deepEqual(filled(c['high']), { 29: 100, 30: 110, 32: 96, 35: 100 });
    assert.deepEqual(filled(c['low']), { 29: 100, 30: 102, 32: 96, 35: 100 });
    assert.deepEqual(filled(c['volume']), { 29: 1, 30: 4, 32: 1, 35: 4 });
    assert.deepEqual(filled(c['volume_usd']), { 29: 100, 30: 208 + 55 + 153, 32: 96, 35: 400 });
    assert.deepEqual(filled(c['buy_volume']), { 29: 1, 30: 2, 32: 0, 35: 4 });
    assert.deepEqual(filled(c['sell_volume']), { 29: 0, 30: 2, 32: 1, 35: 0 });
    assert.deepEqual(filled(c['buy_volume_usd']), { 29: 100, 30: 55 + 153, 32: 0, 35: 400 });
    assert.deepEqual(filled(c['sell_volume_usd']), { 29: 0, 30: 208, 32: 96, 35: 0 });
    assert.deepEqual(filled(c['trades']), { 29: 1, 30: 3, 32: 1, 35: 1 });
    assert.equal(c['open']?.[31], null, 'an empty bucket is null, not carried forward');
    // Meta: coverage, alignment, sources, computed_at = newest event, available_hours (data starts at 23:59).
    assert.equal(extra.coverage['candles'], 4);
    assert.equal(extra['aligned'], true);
    assert.deepEqual(extra['series'], ['candles', 'open_interest', 'funding', 'cvd_perp', 'cvd_spot', 'liquidations']);
    assert.deepEqual(meta['source'], ['binance', 'bybit', 'deribit', 'okx']);
    assert.deepEqual((extra['sources'] as Record<string, string[]>)['cvd_spot'], ['bybit', 'okx']);
    assert.equal(meta['symbol'], 'BTCUSDT');
    assert.equal(meta['computed_at'], new Date(T0 + 5 * MIN + 1).toISOString());
    assert.equal(meta['freshness_seconds'], 1470); // 1469.999 s, one decimal
    assert.equal(extra['available_hours'], 0.51); // (00:29:30 - 23:59:00) = 30.5 min
    for (const name of ['candles', 'open_interest', 'funding', 'cvd_perp', 'cvd_spot', 'liquidations'] as const) {
      for (const col of Object.values(data[name] as Columns)) assert.equal(col.length, 60, `${name} aligned`);
    }
  });

  test('CVD: cumulative taker buy - sell (coins) from the window start, perp and spot separately', async () => {
    const { data } = await bundle('interval=1m&hours=1&series=cvd_perp,cvd_spot');
    const p = data.cvd_perp as Columns;
    const s = data.cvd_spot as Columns;
    assert.deepEqual(filled(p['delta']), { 29: 1, 30: 0, 32: -1, 35: 4 });
    assert.deepEqual(filled(p['cvd']), { 29: 1, 30: 1, 32: 0, 35: 4 });
    assert.deepEqual(filled(s['delta']), { 30: 1, 31: -3 });
    assert.deepEqual(filled(s['cvd']), { 30: 1, 31: -2 });
    assert.equal(p['cvd']?.[31], null);
    const five = await bundle('interval=5m&hours=1&series=cvd_perp');
    // 5m grid: 12 buckets 23:30 … 00:25; 23:55 = index 5 (+1), 00:00 = index 6 (B C D E: 2 - 3 = -1), 00:05 = 7 (+4).
    assert.deepEqual(filled((five.data.cvd_perp as Columns)['delta']), { 5: 1, 6: -1, 7: 4 });
    assert.deepEqual(filled((five.data.cvd_perp as Columns)['cvd']), { 5: 1, 6: 0, 7: 4 });
  });

  test('open interest: last per venue in the bucket, summed across venues; funding: cross-venue means', async () => {
    const { data } = await bundle('interval=1m&hours=1&series=open_interest,funding');
    const oi = data.open_interest as Columns;
    assert.deepEqual(filled(oi['oi']), { 30: 110 + 50, 31: 60 });
    assert.deepEqual(filled(oi['oi_usd']), { 30: 11_000 + 5000 });
    assert.deepEqual(filled(oi['venue_count']), { 30: 2, 31: 1 });
    const f = data.funding as Columns;
    close(f['rate_open']?.[30], (0.0001 + 0.0002) / 2, 'rate_open');
    close(f['rate_close']?.[30], (0.0003 + 0.0002) / 2, 'rate_close');
    close(f['rate_mean']?.[30], (0.0002 + 0.0002) / 2, 'rate_mean');
    assert.equal(f['rate_close']?.[31], null, 'okx published no funding at 00:01');
    // 5m: bybit last 110 (00:00:50), okx last 60 (00:01:01); USD: okx's last published USD value is 5000.
    const five = await bundle('interval=5m&hours=1&series=open_interest');
    assert.deepEqual(filled((five.data.open_interest as Columns)['oi']), { 6: 170 });
    assert.deepEqual(filled((five.data.open_interest as Columns)['oi_usd']), { 6: 16_000 });
    const route = assertOk<Columns & { timestamps: number[] }>(await get('/v2/market/open-interest?symbol=BTCUSDT&interval=5m&hours=1'));
    assert.deepEqual(filled(route.data['oi']), { 6: 170 });
    assert.equal(route.data.timestamps.length, 12);
  });

  test('liquidations: long/short coins, USD and counts', async () => {
    const { data } = await bundle('interval=1m&hours=1&series=liquidations');
    const l = data.liquidations as Columns;
    assert.deepEqual(filled(l['long_size']), { 30: 1, 31: 0.5 });
    assert.deepEqual(filled(l['long_usd']), { 30: 100, 31: 49 });
    assert.deepEqual(filled(l['short_size']), { 30: 2, 31: 0 });
    assert.deepEqual(filled(l['short_usd']), { 30: 210, 31: 0 });
    assert.deepEqual(filled(l['long_count']), { 30: 1, 31: 1 });
    assert.deepEqual(filled(l['short_count']), { 30: 1, 31: 0 });
  });

  test('5m, 1h and 1d roll-ups equal the direct computation from the raw trades', async () => {
    for (const [interval, minutes, hours] of [
      ['5m', 5, 2],
      ['1h', 60, 48],
      ['1d', 1440, 72],
    ] as const) {
      const { data } = await bundle(`interval=${interval}&hours=${hours}&series=candles`);
      const direct = await store.query<Record<string, number | string>>(
        `SELECT toUInt32(toUnixTimestamp(toStartOfInterval(ts, toIntervalMinute({m:UInt32}), 'UTC'))) * 1000 AS t,
           argMin(price, ts) AS open, argMax(price, ts) AS close, max(price) AS high, min(price) AS low,
           sum(size) AS volume, sum(price * size) AS volume_usd, sumIf(size, side = 'buy') AS buy_volume,
           sumIf(size, side = 'sell') AS sell_volume, toString(count()) AS trades
         FROM perp_trades FINAL WHERE symbol = 'BTCUSDT' GROUP BY t ORDER BY t`,
        { m: minutes },
      );
      const c = data.candles as Columns;
      assert.equal(Object.keys(filled(c['open'])).length, direct.length, interval);
      for (const row of direct) {
        const i = data.timestamps.indexOf(Number(row['t']));
        assert.ok(i >= 0, `${interval}: bucket ${row['t']} on the axis`);
        for (const f of ['open', 'close', 'high', 'low', 'volume', 'volume_usd', 'buy_volume', 'sell_volume', 'trades']) {
          assert.equal(c[f]?.[i], Number(row[f]), `${interval} ${f} at ${new Date(Number(row['t'])).toISOString()}`);
        }
      }
    }
    // By hand, 1d: Dec 31 = A; Jan 1 = B..F (open B 104, close F 100, high 110, low 96, 9 coins).
    const day = await bundle('interval=1d&hours=48&series=candles');
    assert.deepEqual(day.data.timestamps, [T0 - 86_400_000, T0]);
    const c = day.data.candles as Columns;
    assert.deepEqual([c['open']?.[1], c['close']?.[1], c['high']?.[1], c['low']?.[1], c['volume']?.[1]], [104, 100, 110, 96, 9]);
    // 5m by hand: 00:00-00:05 = B C D E.
    const five = await bundle('interval=5m&hours=1&series=candles');
    const f = five.data.candles as Columns;
    assert.deepEqual(
      [f['open']?.[6], f['close']?.[6], f['high']?.[6], f['low']?.[6], f['volume']?.[6], f['trades']?.[6]],
      [104, 96, 110, 96, 5, 4],
    );
  });

  test('a series that cannot be served is null with its reason; the others are unaffected', async () => {
    const before = await bundle('interval=1m&hours=1');
    await store.command('RENAME TABLE market_liquidations_1m TO market_liquidations_1m_moved');
    try {
      const { data, extra } = await bundle('interval=1m&hours=1');
      assert.equal(data.liquidations, null);
      assert.match(String(extra.errors?.['liquidations']), /UNKNOWN_TABLE/);
      assert.deepEqual(Object.keys(extra.errors ?? {}), ['liquidations']);
      assert.equal(extra.coverage['liquidations'], 0);
      for (const name of ['candles', 'open_interest', 'funding', 'cvd_perp', 'cvd_spot'] as const)
        assert.deepEqual(data[name], before.data[name], name);
    } finally {
      await store.command('RENAME TABLE market_liquidations_1m_moved TO market_liquidations_1m');
    }
  });

  test('the 30,000-point cap: 422 naming the largest window for the interval', async () => {
    const res = await get('/v2/market/candles?symbol=BTCUSDT&interval=1m&hours=501');
    const body = assertError(res, 422, 'VALIDATION_ERROR');
    assert.match(body.error.message, /largest window for interval 1m is 500 hours/);
    const errors = body.error.details?.['errors'] as { name: string }[];
    assert.equal(errors[0]?.name, 'hours');
    assertError(await get('/v2/market/bundle?symbol=BTCUSDT&interval=5m&hours=2501'), 422, 'VALIDATION_ERROR');
    assertError(await get('/v2/market/bundle?symbol=BTCUSDT&interval=1m&hours=501&series=funding,candles'), 422, 'VALIDATION_ERROR');
    const ok = assertOk<{ timestamps: number[] }>(await get('/v2/market/candles?symbol=BTCUSDT&interval=1m&hours=500'));
    assert.equal(ok.data.timestamps.length, 30_000);
    assertOk(await get('/v2/market/candles?symbol=BTCUSDT&interval=30m&hours=8760'));
    assertError(await get('/v2/market/candles?symbol=BTCUSDT&interval=1h&hours=8761'), 422, 'VALIDATION_ERROR');
    assertError(await get('/v2/market/bundle?symbol=BTCUSDT&series=candles,prices'), 422, 'VALIDATION_ERROR');
  });

  test('the cap is for candles only: open interest and a bundle without candles answer every hours value of the contract (1-8760)', async () => {
    const started = performance.now();
    const oi = assertOk<{ timestamps: number[]; oi: (number | null)[] }>(
      await get('/v2/market/open-interest?symbol=BTCUSDT&interval=1m&hours=8760'),
    );
    assert.equal(oi.data.timestamps.length, 525_600);
    assert.equal(oi.data.oi.length, 525_600);
    assert.equal((oi.meta['extra'] as { points: number }).points, 525_600);
    const bundle = assertOk<{ timestamps: number[]; funding: unknown; candles?: unknown }>(
      await get('/v2/market/bundle?symbol=BTCUSDT&interval=5m&hours=2501&series=open_interest,funding'),
    );
    assert.equal(bundle.data.timestamps.length, Math.ceil((2501 * 60) / 5));
    assert.equal(bundle.data.candles, undefined);
    assertError(await get('/v2/market/open-interest?symbol=BTCUSDT&interval=1m&hours=8761'), 422, 'VALIDATION_ERROR');
    assertError(await get('/v2/market/open-interest?symbol=BTCUSDT&interval=1m&hours=0'), 422, 'VALIDATION_ERROR');
    console.log(`# a year of 1m open interest + a 2501 h 5m bundle: ${Math.round(performance.now() - started)} ms`);
  });

  test('history clamp: enforced for evaluation keys (buckets before the floor dropped), reported for paid plans', async () => {
    const ev = assertOk<{ timestamps: number[] }>(await get('/v2/market/candles?symbol=BTCUSDT&interval=1d&hours=8760', evalKey));
    const floor = NOW - 30 * 86_400_000;
    assert.equal(ev.meta['history_depth_enforced'], true);
    const clamp = (ev.meta['extra'] as Record<string, Record<string, unknown>>)['history_clamp'];
    assert.equal(clamp?.['served_from'], new Date(floor).toISOString());
    assert.ok((ev.data.timestamps[0] ?? 0) >= floor);
    assert.equal(ev.data.timestamps.length, 30); // days starting after the floor, up to today
    const paid = assertOk<{ timestamps: number[] }>(await get('/v2/market/candles?symbol=BTCUSDT&interval=1d&hours=8760'));
    assert.equal(paid.meta['history_depth_enforced'], false);
    assert.equal(paid.data.timestamps.length, 365);
    assert.equal((paid.meta['extra'] as Record<string, unknown>)['history_clamp'], undefined); // pro: 1095 days
  });

  test('quota: one unit per series, reported in meta.extra.quota_units_charged', async () => {
    const remaining = async (url: string) => {
      const res = await get(url);
      assert.equal(res.statusCode, 200, res.body);
      return { left: Number(header(res, 'x-quota-remaining')), extra: res.json<{ meta: { extra: Extra } }>().meta.extra };
    };
    const a = await remaining('/v2/market/candles?symbol=BTCUSDT&interval=1h');
    const b = await remaining('/v2/market/bundle?symbol=BTCUSDT&interval=1h&series=candles,funding,candles');
    assert.equal(a.left - b.left, 2);
    assert.equal(b.extra['quota_units_charged'], 2);
    const c = await remaining('/v2/market/bundle?symbol=BTCUSDT&interval=1h');
    assert.equal(b.left - c.left, 6);
    assert.equal(c.extra['quota_units_charged'], 6);
  });

  test('the grid follows the clock: 5m buckets aligned to the epoch, the last one holds now', async () => {
    clock.set(T0 + 4 * MIN + 1); // last 1m bucket 00:04; hours=1 -> first bucket 23:05
    const { data } = await bundle('interval=5m&hours=1&series=candles');
    // 5m buckets 23:05 ... 00:00 (12); A is in 23:55, B C D E in 00:00.
    assert.equal(data.timestamps[0], T0 - 55 * MIN);
    assert.equal(data.timestamps[11], T0);
    assert.deepEqual(filled((data.candles as Columns)['volume']), { 10: 1, 11: 5 });
    clock.set(NOW);
  });

  test('the routes are documented in /v2/openapi.json and /v2/endpoints with their parameters', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/v2/openapi.json' })).json<{ paths: Record<string, unknown> }>();
    for (const p of ['/v2/market/candles', '/v2/market/open-interest', '/v2/market/bundle']) assert.ok(doc.paths[p], p);
    const { data } = assertOk<{ endpoints: { path: string; parameters: { name: string }[] }[] }>(await get('/v2/endpoints'));
    const bundleEp = data.endpoints.find((e) => e.path === '/v2/market/bundle');
    assert.deepEqual(bundleEp?.parameters.map((p) => p.name).sort(), ['X-API-Key', 'hours', 'interval', 'series', 'symbol']);
  });
});

describe('/v2/market server cache (spec: about 30 s for computed routes)', () => {
  let t: Awaited<ReturnType<typeof migratedStore>>;
  let app: ApiInstance;
  let key: string;
  const start = T0 + 29 * MIN + 5_000; // 00:29:05: +30 s stays in the same last 1m bucket (same grid)
  const clock = testClock(start);

  before(async () => {
    t = await migratedStore();
    await seedMarket(t.store);
    key = await userWithKey(t.store, { userId: 'pro', plan: 'bundle_monthly' });
    app = await testApp(t.store, { marketCacheMs: 30_000 }, { clock });
  });
  after(async () => {
    await app.close();
    await t.dispose();
  });

  const volumes = async (url: string): Promise<Record<number, number>> => {
    const { data } = assertOk<Bundle & Columns>(await app.inject({ method: 'GET', url, headers: { 'x-api-key': key } }));
    return filled(url.includes('/bundle') ? (data.candles as Columns)['volume'] : data['volume']);
  };

  test('a repeated window is served from the cache for 30 s, then read again; failures are never cached', async () => {
    const bundleUrl = '/v2/market/bundle?symbol=BTCUSDT&interval=1m&hours=1';
    const candlesUrl = '/v2/market/candles?symbol=BTCUSDT&interval=1m&hours=1';
    const first = await volumes(bundleUrl);
    assert.equal(first[30], 4, 'bucket 00:00 holds B, C and D');
    assert.equal((await volumes(candlesUrl))[30], 4);
    await t.store.insert('perp_trades', [trade('perp', 'okx', T0 + 20_000, 'late', 100, 8, 'buy')]);

    clock.advance(29_999);
    assert.deepEqual(await volumes(bundleUrl), first, 'within 30 s: the cached window');
    assert.equal((await volumes(candlesUrl))[30], 4);

    clock.advance(1);
    assert.equal((await volumes(bundleUrl))[30], 12, 'after 30 s: read again, the late trade is in');
    assert.equal((await volumes(candlesUrl))[30], 12);

    // A bundle with a failed series is served but not cached: the next request reads again.
    clock.advance(30_000);
    await t.store.command('RENAME TABLE market_liquidations_1m TO market_liquidations_1m_moved');
    const get = () => app.inject({ method: 'GET', url: bundleUrl, headers: { 'x-api-key': key } });
    try {
      const failed = assertOk<Bundle>(await get());
      assert.equal(failed.data.liquidations, null);
    } finally {
      await t.store.command('RENAME TABLE market_liquidations_1m_moved TO market_liquidations_1m');
    }
    const healed = assertOk<Bundle>(await get());
    assert.ok(healed.data.liquidations !== null && healed.data.liquidations !== undefined, 'liquidations served again at once');
  });
});
