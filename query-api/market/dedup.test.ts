import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { rebuildMarketMinutes } from '#clickhouse/market-rebuild.ts';
import type { Store } from '#clickhouse/store.ts';
import { migratedStore } from '../testing/harness.ts';
import { LIQS, MIN, seedMarket, STATS, T0, trade } from './testing/fixtures.ts';

/** At-least-once delivery vs the 1-minute states (clickhouse/README.md "Market series"). */

let t: Awaited<ReturnType<typeof migratedStore>>;
let store: Store;
before(async () => {
  t = await migratedStore();
  store = t.store;
});
after(async () => t.dispose());

type Perp = { v: number; n: string; o: number; c: number; h: number };

/** The perpetual state of the bucket starting at T0 (00:00 UTC: a minute, an hour and a day) in one table. */
const bucketAtT0 = async (table: string): Promise<Perp | undefined> =>
  (
    await store.query<Perp>(
      `SELECT sum(volume) AS v, toString(sum(trades)) AS n, argMinMerge(open) AS o, argMaxMerge(close) AS c, max(high) AS h
       FROM {t:Identifier} WHERE symbol = 'BTCUSDT' AND market = 'perp' AND bucket = toDateTime({b:UInt32}, 'UTC')`,
      { t: table, b: T0 / 1000 },
    )
  )[0];
const minute = (): Promise<Perp | undefined> => bucketAtT0('market_trades_1m');
/** The hour and the day starting at T0: the same (no perpetual trade later that day). */
const hourAndDay = async (): Promise<(Perp | undefined)[]> => [await bucketAtT0('market_trades_1h'), await bucketAtT0('market_trades_1d')];

test('a batch retried with the same dedup token reaches neither the raw table nor the 1m, 1h and 1d states twice', async () => {
  await seedMarket(store);
  const batch = [trade('perp', 'okx', T0 + 40_000, 'R1', 90, 8, 'sell')];
  await store.insert('perp_trades', batch, { dedupToken: 'raw-writer:md.perp_trades.v1:0:7-7:perp_trades' });
  await store.insert('perp_trades', batch, { dedupToken: 'raw-writer:md.perp_trades.v1:0:7-7:perp_trades' });
  // 00:00 = B C D + R1: 2 + 0.5 + 1.5 + 8 coins, 4 trades; open B 104, close D 102 (R1 at 00:00:40 is earlier).
  assert.deepEqual(await minute(), { v: 12, n: '4', o: 104, c: 102, h: 110 });
  // Hour and day 00:00 = the minute + E (00:02, 1 coin) + F (00:05, 4 coins, the last trade: close 100).
  const hour = { v: 17, n: '6', o: 104, c: 100, h: 110 };
  assert.deepEqual(await hourAndDay(), [hour, hour]);
});

test('an event redelivered in another batch: OHLC unchanged, sums counted twice until rebuilt from FINAL', async () => {
  // R1 again, now inside a different batch (different token): the raw table collapses it on merge (FINAL),
  // the state sums cannot tell.
  await store.insert(
    'perp_trades',
    [trade('perp', 'okx', T0 + 40_000, 'R1', 90, 8, 'sell'), trade('perp', 'okx', T0 + 45_000, 'R2', 100, 1, 'buy')],
    { dedupToken: 'other' },
  );
  assert.deepEqual(await minute(), { v: 21, n: '6', o: 104, c: 102, h: 110 });
  assert.deepEqual(await hourAndDay(), [
    { v: 26, n: '8', o: 104, c: 100, h: 110 },
    { v: 26, n: '8', o: 104, c: 100, h: 110 },
  ]);
  // A range ending mid-hour: the minutes of [23:00, 00:03) are rebuilt, the hours 23:00 and 00:00 and both days are
  // re-derived from all their minutes (00:05 included).
  await rebuildMarketMinutes(store, T0 - 60 * MIN, T0 + 3 * MIN);
  assert.deepEqual(await minute(), { v: 13, n: '5', o: 104, c: 102, h: 110 });
  const rebuilt = { v: 18, n: '7', o: 104, c: 100, h: 110 };
  assert.deepEqual(await hourAndDay(), [rebuilt, rebuilt]);
  // The rebuild also restores the other families exactly (idempotent: run it twice).
  await rebuildMarketMinutes(store, T0 - 60 * MIN, T0 + 60 * MIN);
  assert.deepEqual(await minute(), { v: 13, n: '5', o: 104, c: 102, h: 110 });
  assert.deepEqual(await hourAndDay(), [rebuilt, rebuilt]);
  const [prev] = await store.query<{ v: number }>(
    "SELECT sum(volume) AS v FROM market_trades_1d WHERE bucket = toDateTime({b:UInt32}, 'UTC')",
    { b: T0 / 1000 - 86_400 },
  );
  assert.equal(prev?.v, 1, 'trade A (23:59:59.999) stays in the previous day, once');
  const [liq] = await store.query<{ n: string }>('SELECT toString(sum(long_count) + sum(short_count)) AS n FROM market_liquidations_1m');
  assert.equal(liq?.n, String(LIQS.length));
  const [st] = await store.query<{ n: string }>(
    'SELECT toString(count()) AS n FROM (SELECT venue, bucket FROM market_perp_stats_1m GROUP BY venue, bucket)',
  );
  assert.equal(st?.n, String(new Set(STATS.map((s) => `${s.venue}:${Math.floor(s.ts / MIN)}`)).size));
});
