import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { MarketEvent, Venue } from '#schemas/events.ts';
import { migrate } from './migrate.ts';
import { toRawRow } from './rows.ts';
import type { Store } from './store.ts';
import * as fx from './testing/fixtures.ts';
import { openTempStore } from './testing/temp-store.ts';

const VENUES: readonly Venue[] = ['deribit', 'bybit', 'okx', 'binance'];

/** Batch n of the writer: one event of each MV-fed family (and of two other raw tables, one of them altered by 050),
 * spread over 3 days of minutes and 4 venues, unique ids. */
function batch(n: number): MarketEvent[] {
  const ts = fx.TS - 2 * 86_400_000 + ((n * 7_919) % (3 * 86_400)) * 1000 + (n % 997);
  const venue = VENUES[n % VENUES.length] ?? 'deribit';
  const price = 80_000 + (n % 200) * 7.5;
  return [
    {
      type: 'perp_trade',
      event: {
        ...fx.perpTrade,
        venue,
        ts,
        id: `p:${n}`,
        tradeId: String(n),
        price,
        size: 0.001 * (1 + (n % 9)),
        side: n % 3 === 0 ? 'buy' : 'sell',
      },
    },
    {
      type: 'spot_trade',
      event: { ...fx.spotTrade, venue, ts: ts + 1, id: `s:${n}`, tradeId: String(n), price: price + 1, size: 0.002 * (1 + (n % 5)) },
    },
    {
      type: 'perp_stats',
      event: {
        ...fx.perpStats,
        venue,
        ts: ts + 2,
        id: `st:${n}`,
        openInterest: 1000 + n,
        fundingRate: n % 4 === 0 ? null : 0.0001 * (n % 7),
      },
    },
    {
      type: 'liquidation',
      event: { ...fx.liquidation, venue, ts: ts + 3, id: `l:${n}`, side: n % 2 === 0 ? 'long' : 'short', size: 1 + (n % 3) },
    },
    { type: 'option_trade', event: { ...fx.optionTrade(n % 5), venue, ts: ts + 4, id: `o:${n}`, tradeId: String(n) } },
    { type: 'option_ticker', event: { ...fx.optionTicker, venue, ts: ts + 5, id: `t:${n}` } },
    { type: 'index', event: { ...fx.indexPrice, venue, ts: ts + 6, id: `i:${n}` } },
  ];
}

/** Inserts batches until stopped: one INSERT per table and batch, as the raw writer does; rows counted once stored. */
function startWriter(store: Store): { stop(): Promise<{ sent: Map<string, number>; batches: number; failures: number }> } {
  const sent = new Map<string, number>();
  let running = true;
  let batches = 0;
  let failures = 0;
  const loop = (async () => {
    for (let n = 0; running; n++) {
      for (const e of batch(n)) {
        const { table, row } = toRawRow(e);
        try {
          await store.insert(table, [row], { dedupToken: `live:${table}:${n}` });
          sent.set(table, (sent.get(table) ?? 0) + 1);
        } catch {
          failures++; // the table does not exist yet (before 001): the writer retries with the next batch
          await sleep(5);
        }
      }
      batches++;
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { sent, batches, failures };
    },
  };
}

const rows = async (store: Store, sql: string): Promise<string> => JSON.stringify(await store.query(sql));

test(
  'every migration applied on a fresh store while a writer inserts: no row lost, every MV-fed state equals its recompute',
  { timeout: 600_000 },
  async () => {
    const { store, dispose } = await openTempStore();
    try {
      const writer = startWriter(store);
      await sleep(20);
      const { applied } = await migrate(store);
      const duringMigrations = (await store.query<{ n: string }>('SELECT count() AS n FROM perp_trades'))[0]?.n;
      await sleep(200);
      const { sent, batches, failures } = await writer.stop();
      assert.ok(failures > 0, 'the writer started before the raw tables existed');
      assert.equal(sent.size, 7, [...sent.keys()].join(','));
      assert.ok(applied.includes('021_market_venue_mask') && applied.includes('056_state_resync'), applied.join(','));
      assert.ok(
        Number(duringMigrations) >= 5,
        `the writer stored ${duringMigrations} perp trades while the migrations ran (${batches} batches)`,
      );

      // raw tables: every stored insert is there
      for (const [table, n] of sent) {
        const [c] = await store.query<{ n: string }>(`SELECT count() AS n FROM ${table}`);
        assert.equal(Number(c?.n), n, table);
      }
      // 1-minute states = their recompute from the raw rows, key by key
      const tradesState = (
        tier: string,
        bucket: string,
      ) => `SELECT symbol, market, ${bucket} AS b, argMinMerge(open) AS o, argMaxMerge(close) AS c, max(high) AS h, min(low) AS l,
      round(sum(volume), 9) AS v, round(sum(buy_volume), 9) AS bv, sum(trades) AS n, max(last_ts) AS t, arraySort(groupUniqArrayArray(venues)) AS vs, groupBitOr(venue_mask) AS m
      FROM market_trades_${tier} GROUP BY symbol, market, b ORDER BY symbol, market, b`;
      const tradesRaw = (
        bucket: string,
      ) => `SELECT symbol, market, ${bucket} AS b, argMin(price, (ts, cityHash64(venue, id))) AS o, argMax(price, (ts, cityHash64(venue, id))) AS c,
      max(price) AS h, min(price) AS l, round(sum(size), 9) AS v, round(sumIf(size, side = 'buy'), 9) AS bv, toUInt64(count()) AS n, max(ts) AS t,
      arraySort(groupUniqArray(toString(venue))) AS vs,
      toUInt16(groupBitOr(bitShiftLeft(toUInt16(1), indexOf(['deribit', 'bybit', 'okx', 'binance', 'derive', 'thalex', 'delta_india', 'delta', 'bullish', 'paradex'], toString(venue)) - 1))) AS m
      FROM (SELECT symbol, 'perp' AS market, ts, venue, id, price, size, side FROM perp_trades UNION ALL SELECT symbol, 'spot', ts, venue, id, price, size, side FROM spot_trades)
      GROUP BY symbol, market, b ORDER BY symbol, market, b`;
      for (const [tier, bucket] of [
        ['1m', 'toStartOfMinute(bucket)'],
        ['1h', 'toStartOfHour(bucket)'],
        ['1d', 'toStartOfDay(bucket)'],
      ] as const) {
        const rawBucket = bucket.replace('bucket', "toDateTime(ts, 'UTC')");
        assert.equal(await rows(store, tradesState(tier, bucket)), await rows(store, tradesRaw(rawBucket)), `market_trades_${tier}`);
        assert.equal(
          await rows(
            store,
            `SELECT symbol, ${bucket} AS b, sum(long_count) AS lc, sum(short_count) AS sc, round(sum(long_size) + sum(short_size), 9) AS s FROM market_liquidations_${tier} GROUP BY symbol, b ORDER BY symbol, b`,
          ),
          await rows(
            store,
            `SELECT symbol, ${rawBucket} AS b, toUInt64(countIf(side = 'long')) AS lc, toUInt64(countIf(side = 'short')) AS sc, round(sum(size), 9) AS s FROM liquidations GROUP BY symbol, b ORDER BY symbol, b`,
          ),
          `market_liquidations_${tier}`,
        );
        assert.equal(
          await rows(
            store,
            `SELECT symbol, venue, ${bucket} AS b, sum(funding_count) AS fc, round(sum(funding_sum), 12) AS fs, reinterpretAsFloat64(toUInt64(bitAnd(max(oi_last), 0xFFFFFFFFFFFFFFFF))) AS oi FROM market_perp_stats_${tier} GROUP BY symbol, venue, b ORDER BY symbol, venue, b`,
          ),
          await rows(
            store,
            `SELECT symbol, venue, ${rawBucket} AS b, toUInt64(count(funding_rate)) AS fc, round(sum(ifNull(funding_rate, 0)), 12) AS fs, argMax(open_interest, ts) AS oi FROM perp_stats GROUP BY symbol, venue, b ORDER BY symbol, venue, b`,
          ),
          `market_perp_stats_${tier}`,
        );
      }
      assert.equal(
        await rows(
          store,
          'SELECT symbol, bucket, venue, strike, side, sum(trades) AS n, round(sum(size), 9) AS q, sum(block_trades) AS bt FROM option_tape_1m GROUP BY symbol, bucket, venue, strike, side ORDER BY symbol, bucket, venue, strike, side',
        ),
        await rows(
          store,
          "SELECT symbol, toStartOfMinute(toDateTime(ts, 'UTC')) AS bucket, venue, strike, side, toUInt64(count()) AS n, round(sum(size), 9) AS q, toUInt64(countIf(block)) AS bt FROM option_trades GROUP BY symbol, bucket, venue, strike, side ORDER BY symbol, bucket, venue, strike, side",
        ),
        'option_tape_1m',
      );
    } finally {
      await dispose();
    }
  },
);
