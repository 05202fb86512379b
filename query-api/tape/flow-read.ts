/**
 * Cumulative aggressor prints per (strike, type, taker side, venue) of a symbol's contracts whose expiry date
 * (UTC) is today or later, trades up to `nowMs`, from option_trades_unexpired FINAL (migration 062: the raw trades of
 * contracts not yet expired, ordered by expiry; a redelivered trade once).
 */
import { msParam } from '#clickhouse/epoch-ms.ts';
import type { Store } from '#clickhouse/store.ts';
import type { FlowCell } from '#processors/analytics/flow-by-strike.ts';
import type { MarketSymbol } from '#schemas/events.ts';

export interface FlowRead {
  readonly symbol: MarketSymbol;
  readonly nowMs: number;
  /** `YYYY-MM-DD` expiry dates; empty: every contract with expiry date ≥ today. */
  readonly expiryDates: readonly string[];
  readonly minPremiumUsd: number;
  readonly venues: readonly string[];
}

export async function readFlowCells(store: Store, r: FlowRead): Promise<FlowCell[]> {
  const c = [
    'symbol = {symbol:String}',
    `ts <= ${msParam('now')}`,
    // expiry date ≥ today UTC, written on the key column so the primary key of option_trades_unexpired prunes
    `expiry >= toDateTime64(toDate(${msParam('now')}, 'UTC'), 3, 'UTC')`,
    'isFinite(size)',
    'isFinite(premium_usd)',
    'premium_usd >= {minPremium:Float64}',
  ];
  const params: Record<string, unknown> = { symbol: r.symbol, now: Math.trunc(r.nowMs), minPremium: r.minPremiumUsd };
  if (r.expiryDates.length > 0) {
    c.push(`toString(toDate(expiry, 'UTC')) IN {expiries:Array(String)}`);
    params.expiries = r.expiryDates;
  }
  if (r.venues.length > 0) {
    c.push('venue IN {venues:Array(String)}');
    params.venues = r.venues;
  }
  const sql = `SELECT strike, option_type, side, toString(venue) AS venue_name, sum(size) AS coins, sum(premium_usd) AS premium, count() AS trade_count
FROM option_trades_unexpired FINAL
WHERE ${c.join(' AND ')}
GROUP BY strike, option_type, side, venue_name
SETTINGS do_not_merge_across_partitions_select_final = 1`;
  const rows = await store.query<{
    strike: number;
    option_type: string;
    side: string;
    venue_name: string;
    coins: number;
    premium: number;
    trade_count: string;
  }>(sql, params);
  return rows.map((x) => ({
    strike: x.strike,
    type: x.option_type,
    side: x.side,
    venue: x.venue_name,
    size: x.coins,
    premium: x.premium,
    trades: Number(x.trade_count),
  }));
}
