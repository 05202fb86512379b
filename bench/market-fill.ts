/**
 * A year of 1-minute BTCUSDT market states for the market bench, written with INSERT … SELECT FROM numbers() (the
 * pipeline backfill, `gex backfill --sandbox --days 365`, takes minutes; the states it produces have the same
 * shape): per minute 4 perpetual + 4 spot trades spread over the ten venues, perp stats from all ten venues (as
 * the sandbox publishes them), liquidations every 5th minute. Writing the 1-minute tables fires migration 022's
 * views, so the hourly and daily tables fill as they do in production; then OPTIMIZE … FINAL on all of them (one
 * row per key, as after background merges).
 */
import { ROLLUP_FAMILIES } from '#clickhouse/market-rollups.ts';
import type { Store } from '#clickhouse/store.ts';
import { VENUES } from '#schemas/events.ts';

export const MIN_S = 60;
export const YEAR_MINUTES = 525_600;
const VENUE_LIST = `[${VENUES.map((v) => `'${v}'`).join(', ')}]`;
const N = VENUES.length;
/** A perp-stats value packed as the MV packs it: ts_ms << 64 | the Float64's bits. */
const PACK = (v: string): string => `bitOr(bitShiftLeft(toUInt128(toUnixTimestamp64Milli(ts)), 64), toUInt128(reinterpretAsUInt64(${v})))`;
const KEY = 'bitOr(bitShiftLeft(toUInt128(toUnixTimestamp64Milli(ts)), 64), toUInt128(k))';

export async function fillYear(store: Store, fromS: number): Promise<void> {
  await store.command(
    `INSERT INTO market_trades_1m
     SELECT 'BTCUSDT', mk, bucket, argMinState(price, ${KEY}), argMaxState(price, ${KEY}), max(price), min(price),
       sum(size), sum(price * size), sumIf(size, k % 2 = 0), sumIf(price * size, k % 2 = 0), sumIf(size, k % 2 = 1), sumIf(price * size, k % 2 = 1),
       toUInt64(count()), max(ts), groupUniqArray(venue), groupBitOr(bit)
     FROM (
       SELECT number AS k, if(number % 8 < 4, 'perp', 'spot') AS mk, toDateTime({from:UInt32} + intDiv(number, 8) * ${MIN_S}, 'UTC') AS bucket,
         fromUnixTimestamp64Milli(toInt64(({from:UInt32} + intDiv(number, 8) * ${MIN_S}) * 1000 + (number % 8) * 7000), 'UTC') AS ts,
         95000 + 5000 * sin(number / 400000) + (number % 13) AS price, 0.01 + (number % 7) / 100 AS size,
         ${VENUE_LIST}[number % ${N} + 1] AS venue, bitShiftLeft(toUInt16(1), number % ${N}) AS bit
       FROM numbers({n:UInt64}))
     GROUP BY mk, bucket
     SETTINGS insert_deduplicate = 0`,
    { from: fromS, n: YEAR_MINUTES * 8 },
  );
  await store.command(
    `INSERT INTO market_perp_stats_1m
     SELECT 'BTCUSDT', venue, bucket, max(${PACK('oi')}), max(${PACK('oi_usd')}), min(${PACK('f')}), max(${PACK('f')}), sum(f), toUInt64(count(f)), max(ts)
     FROM (
       SELECT ${VENUE_LIST}[number % ${N} + 1] AS venue, toDateTime({from:UInt32} + intDiv(number, ${N}) * ${MIN_S}, 'UTC') AS bucket,
         fromUnixTimestamp64Milli(toInt64(({from:UInt32} + intDiv(number, ${N}) * ${MIN_S}) * 1000 + 59000), 'UTC') AS ts,
         20000.0 + number % 97 AS oi, (20000.0 + number % 97) * 95000 AS oi_usd, 0.0001 + (number % 11) / 1e6 AS f
       FROM numbers({n:UInt64}))
     GROUP BY venue, bucket
     SETTINGS insert_deduplicate = 0`,
    { from: fromS, n: YEAR_MINUTES * N },
  );
  await store.command(
    `INSERT INTO market_liquidations_1m
     SELECT 'BTCUSDT', toDateTime({from:UInt32} + number * 5 * ${MIN_S}, 'UTC'), 0.5, 47500, 1, 0.25, 23750, 1,
       fromUnixTimestamp64Milli(toInt64(({from:UInt32} + number * 5 * ${MIN_S}) * 1000 + 30000), 'UTC'), ['bybit', 'okx'], toUInt16(6)
     FROM numbers({n:UInt64})
     SETTINGS insert_deduplicate = 0`,
    { from: fromS, n: YEAR_MINUTES / 5 },
  );
  for (const f of ROLLUP_FAMILIES) for (const tier of ['1m', '1h', '1d']) await store.command(`OPTIMIZE TABLE ${f}_${tier} FINAL`);
}

/** Rows per state table (the bench's header line). */
export async function tableRows(store: Store): Promise<string> {
  const out: string[] = [];
  for (const f of ROLLUP_FAMILIES) {
    const [r] = await store.query<{ m: string; h: string; d: string }>(
      'SELECT toString((SELECT count() FROM {m:Identifier})) AS m, toString((SELECT count() FROM {h:Identifier})) AS h, toString((SELECT count() FROM {d:Identifier})) AS d',
      { m: `${f}_1m`, h: `${f}_1h`, d: `${f}_1d` },
    );
    out.push(`${f} 1m/1h/1d ${r?.m}/${r?.h}/${r?.d}`);
  }
  return out.join(', ');
}
