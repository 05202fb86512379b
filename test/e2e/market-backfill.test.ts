import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '#clickhouse/store.ts';
import { runBackfill } from '#app/runtime/backfill.ts';
import { readBundle } from '#query-api/market/bundle-series.ts';
import { gridFor } from '#query-api/market/grid.ts';
import { SERIES } from '#query-api/market/series.ts';
import { assertOk } from '#query-api/testing/assertions.ts';
import { migratedStore, testApp, testClock, userWithKey } from '#query-api/testing/harness.ts';
import type { ApiInstance } from '#query-api/types.ts';
import { msParam } from '#clickhouse/epoch-ms.ts';

/** Sandbox -> backfill (encode -> in-process bus -> raw writer -> raw tables -> MVs) -> /v2/market/bundle. */

const HOUR = 3_600_000;
const TO = Date.UTC(2026, 2, 1, 12); // 12:00 UTC
const NOW = TO + 30_000;
const VENUES = ['deribit', 'bybit', 'okx', 'binance'] as const;

let t: Awaited<ReturnType<typeof migratedStore>>;
let store: Store;
let app: ApiInstance;
let key: string;

before(async () => {
  t = await migratedStore();
  store = t.store;
  // Fast model: 3 hours, 4 trades/min per venue book. Full model: the 10 minutes before, every event family.
  const fast = await runBackfill({
    store,
    symbols: ['BTCUSDT'],
    fromMs: TO - 3 * HOUR,
    toMs: TO,
    model: 'fast',
    seed: 7,
    tradesPerMinute: 4,
    venues: VENUES,
  });
  assert.equal(fast.stored, fast.published);
  const full = await runBackfill({
    store,
    symbols: ['BTCUSDT'],
    fromMs: TO - 3 * HOUR - 10 * 60_000,
    toMs: TO - 3 * HOUR,
    model: 'full',
    seed: 7,
    tradesPerMinute: 1,
    venues: VENUES,
  });
  assert.equal(full.stored, full.published);
  key = await userWithKey(store, { userId: 'u', plan: 'bundle_monthly' });
  app = await testApp(store, {}, { clock: testClock(NOW) });
});
after(async () => {
  await app?.close();
  await t?.dispose();
});

type Columns = Record<string, (number | null)[]>;
const sum = (xs: readonly (number | null)[] | undefined): number => (xs ?? []).reduce<number>((a, x) => a + (x ?? 0), 0);
const near = (a: number, b: number, what: string) => assert.ok(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);

test(
  'the bundle over the backfilled window: candle volume = sum of stored perp trades, CVD = stored buy - sell',
  { timeout: 180_000 },
  async () => {
    const res = await app.inject({
      method: 'GET',
      url: '/v2/market/bundle?symbol=BTCUSDT&interval=5m&hours=4',
      headers: { 'x-api-key': key },
    });
    const { data, meta } = assertOk<{ timestamps: number[] } & Record<string, Columns | null>>(res);
    const from = data.timestamps[0] ?? 0;
    const [perp] = await store.query<{ v: number; n: string; b: number; s: number }>(
      `SELECT sum(size) AS v, toString(count()) AS n, sumIf(size, side = 'buy') AS b, sumIf(size, side = 'sell') AS s FROM perp_trades FINAL
     WHERE symbol = 'BTCUSDT' AND ts >= ${msParam('from')}`,
      { from },
    );
    const [spot] = await store.query<{ b: number; s: number }>(
      `SELECT sumIf(size, side = 'buy') AS b, sumIf(size, side = 'sell') AS s FROM spot_trades FINAL
     WHERE symbol = 'BTCUSDT' AND ts >= ${msParam('from')}`,
      { from },
    );
    const candles = data['candles'] as Columns;
    near(sum(candles['volume']), perp?.v ?? Number.NaN, 'candle volume');
    assert.equal(sum(candles['trades']), Number(perp?.n));
    near(sum(candles['buy_volume']) + sum(candles['sell_volume']), perp?.v ?? Number.NaN, 'buy + sell');
    const cvdPerp = (data['cvd_perp'] as Columns)['cvd'] ?? [];
    const lastCvd = [...cvdPerp].reverse().find((x) => x !== null) ?? Number.NaN;
    near(lastCvd, (perp?.b ?? 0) - (perp?.s ?? 0), 'perp CVD');
    const cvdSpot = (data['cvd_spot'] as Columns)['cvd'] ?? [];
    near([...cvdSpot].reverse().find((x) => x !== null) ?? Number.NaN, (spot?.b ?? 0) - (spot?.s ?? 0), 'spot CVD');
    // Every series is served and filled where the backfill wrote data (3 h 10 min of the 4 h window).
    const extra = meta['extra'] as { coverage: Record<string, number>; errors?: unknown; available_hours?: number };
    assert.equal(extra.errors, undefined);
    assert.equal(extra.coverage['candles'], 38); // 12:00 is the bucket holding now: no data yet
    assert.equal(extra.coverage['open_interest'], 38);
    assert.equal(extra.coverage['funding'], 38);
    assert.ok((extra.coverage['liquidations'] ?? 0) > 0);
    assert.equal(extra.available_hours, 3.18); // data from 08:50 to now (12:00:30)
    assert.deepEqual(meta['source'], [...VENUES].sort());
    assert.equal(data.timestamps.length, 48);
  },
);

/** Exact columns: prices, counts, venue counts; the others are Float64 sums (equal up to the order of addition). */
const EXACT = new Set(['open', 'high', 'low', 'close', 'trades', 'venue_count', 'long_count', 'short_count', 'rate_open', 'rate_close']);

test(
  'the backfill fills the hourly and daily tables: the 1h and 1d bundles equal the 1-minute read of the same data',
  { timeout: 180_000 },
  async () => {
    for (const interval of ['1h', '1d'] as const) {
      const grid = gridFor(interval, 24, NOW);
      const cascaded = await readBundle(store, grid, 'BTCUSDT', SERIES);
      const minutes = await readBundle(store, grid, 'BTCUSDT', SERIES, '1m');
      for (const name of SERIES) {
        const c = cascaded.series.get(name);
        const m = minutes.series.get(name);
        assert.ok(c && m, name);
        assert.deepEqual({ ...c, columns: null }, { ...m, columns: null }, `${name} at ${interval}: coverage, sources, first/last`);
        for (const [col, values] of Object.entries(c.columns)) {
          const other: readonly (number | null)[] = m.columns[col] ?? [];
          if (EXACT.has(col)) assert.deepEqual(values, other, `${name}.${col} at ${interval}`);
          else
            values.forEach((v, i) =>
              v === null || other[i] === null
                ? assert.equal(v, other[i])
                : near(v, other[i] ?? Number.NaN, `${name}.${col}[${i}] at ${interval}`),
            );
        }
      }
      assert.ok((cascaded.series.get('candles')?.coverage ?? 0) > 0);
    }
    const [n] = await store.query<{ h: string; d: string }>(
      "SELECT toString((SELECT count() FROM (SELECT bucket FROM market_trades_1h WHERE market = 'perp' GROUP BY bucket))) AS h, toString((SELECT count() FROM (SELECT bucket FROM market_trades_1d WHERE market = 'perp' GROUP BY bucket))) AS d",
    );
    // 08:50-12:00: the hours 08, 09, 10 and 11, one day.
    assert.deepEqual(n, { h: '4', d: '1' });
  },
);
