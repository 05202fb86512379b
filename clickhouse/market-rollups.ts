import type { Store } from './store.ts';

/**
 * The hourly and daily market states (migration 022_market_rollups.sql) derived from the 1-minute states: the
 * SELECT its materialized views run on every block written to a *_1m table, and a re-derivation of whole hours and
 * days from the *_1m tables (after `gex backfill --rebuild` rewrote minutes; the views only ever add).
 */
export const ROLLUP_TIERS = ['1h', '1d'] as const;
export type RollupTier = (typeof ROLLUP_TIERS)[number];
export const ROLLUP_FAMILIES = ['market_trades', 'market_perp_stats', 'market_liquidations'] as const;
export type RollupFamily = (typeof ROLLUP_FAMILIES)[number];

const TIER_MS: Readonly<Record<RollupTier, number>> = { '1h': 3_600_000, '1d': 86_400_000 };
const START: Readonly<Record<RollupTier, string>> = { '1h': "toStartOfHour(m.bucket, 'UTC')", '1d': "toStartOfDay(m.bucket, 'UTC')" };

/** Per family: the key columns and the merge of each state column (-MergeState, max/min, sums, ORs). */
const FAMILY: Readonly<Record<RollupFamily, { readonly keys: readonly string[]; readonly states: string }>> = {
  market_trades: {
    keys: ['symbol', 'market'],
    states: `argMinMergeState(m.open) AS open, argMaxMergeState(m.close) AS close, max(m.high) AS high, min(m.low) AS low,
  sum(m.volume) AS volume, sum(m.volume_usd) AS volume_usd, sum(m.buy_volume) AS buy_volume, sum(m.buy_volume_usd) AS buy_volume_usd,
  sum(m.sell_volume) AS sell_volume, sum(m.sell_volume_usd) AS sell_volume_usd, sum(m.trades) AS trades, max(m.last_ts) AS last_ts,
  groupUniqArrayArray(m.venues) AS venues, groupBitOr(m.venue_mask) AS venue_mask`,
  },
  market_perp_stats: {
    keys: ['symbol', 'venue'],
    states: `max(m.oi_last) AS oi_last, max(m.oi_usd_last) AS oi_usd_last, min(m.funding_open) AS funding_open,
  max(m.funding_close) AS funding_close, sum(m.funding_sum) AS funding_sum, sum(m.funding_count) AS funding_count, max(m.last_ts) AS last_ts`,
  },
  market_liquidations: {
    keys: ['symbol'],
    states: `sum(m.long_size) AS long_size, sum(m.long_usd) AS long_usd, sum(m.long_count) AS long_count, sum(m.short_size) AS short_size,
  sum(m.short_usd) AS short_usd, sum(m.short_count) AS short_count, max(m.last_ts) AS last_ts, groupUniqArrayArray(m.venues) AS venues,
  groupBitOr(m.venue_mask) AS venue_mask`,
  },
};

/** `SELECT … FROM <family>_1m AS m` with the tier's bucket; `where` (may be empty) goes before the GROUP BY. */
export function rollupSelect(family: RollupFamily, tier: RollupTier, where = ''): string {
  const f = FAMILY[family];
  return `SELECT ${f.keys.map((k) => `m.${k} AS ${k}`).join(', ')}, ${START[tier]} AS bucket,
  ${f.states}
FROM ${family}_1m AS m${where === '' ? '' : `\nWHERE ${where}`}
GROUP BY ${f.keys.join(', ')}, bucket`;
}

const RANGE = "m.bucket >= toDateTime({from_s:UInt32}, 'UTC') AND m.bucket < toDateTime({to_s:UInt32}, 'UTC')";
const TARGET_RANGE = "bucket >= toDateTime({from_s:UInt32}, 'UTC') AND bucket < toDateTime({to_s:UInt32}, 'UTC')";

/** The whole hours and days touching [fromMs, toMs), as [from, to) per tier. */
export function enclosing(tier: RollupTier, fromMs: number, toMs: number): { readonly fromMs: number; readonly toMs: number } {
  const step = TIER_MS[tier];
  return { fromMs: Math.floor(fromMs / step) * step, toMs: Math.ceil(toMs / step) * step };
}

/**
 * Recomputes the hourly and daily states of every hour and day touching [fromMs, toMs) from the 1-minute states:
 * DELETE those buckets, then INSERT … SELECT the views' aggregation over their minutes. Like the minute rebuild,
 * run it on closed hours/days (a minute written by a live writer between the two statements would count twice).
 */
export async function rederiveRollups(store: Store, fromMs: number, toMs: number): Promise<void> {
  for (const tier of ROLLUP_TIERS) {
    const r = enclosing(tier, fromMs, toMs);
    const params = { from_s: r.fromMs / 1000, to_s: r.toMs / 1000 };
    for (const family of ROLLUP_FAMILIES) {
      // Table names are constants of this file (not parameters).
      await store.command(`DELETE FROM ${family}_${tier} WHERE ${TARGET_RANGE}`, params);
      await store.command(`INSERT INTO ${family}_${tier}\n${rollupSelect(family, tier, RANGE)}\nSETTINGS insert_deduplicate = 0`, params);
    }
  }
}
