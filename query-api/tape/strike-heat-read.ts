/** Premium and trade count per (strike, taker side) of a symbol's option trades in a window (option_trades FINAL). */
import { msParam } from '#clickhouse/epoch-ms.ts';
import type { Store } from '#clickhouse/store.ts';
import type { MarketSymbol } from '#schemas/events.ts';
import type { SidePremium } from '#processors/analytics/strike-heat.ts';

export interface StrikeHeatRead {
  readonly symbol: MarketSymbol;
  /** Window (fromMs, toMs]. */
  readonly fromMs: number;
  readonly toMs: number;
  readonly minPremiumUsd: number;
  /** Empty: every venue. */
  readonly venues: readonly string[];
}

export async function readSidePremium(
  store: Store,
  r: StrikeHeatRead,
): Promise<{ readonly rows: SidePremium[]; readonly venues: string[] }> {
  const venueClause = r.venues.length > 0 ? ' AND venue IN {venues:Array(String)}' : '';
  const sql = `SELECT strike, side, sum(premium_usd) AS premium, count() AS trade_count, groupUniqArray(toString(venue)) AS venue_list
FROM option_trades FINAL
WHERE symbol = {symbol:String} AND ts > ${msParam('from')} AND ts <= ${msParam('to')} AND isFinite(premium_usd) AND premium_usd >= {minPremium:Float64}${venueClause}
GROUP BY strike, side`;
  const params = {
    symbol: r.symbol,
    from: Math.trunc(r.fromMs),
    to: Math.trunc(r.toMs),
    minPremium: r.minPremiumUsd,
    ...(r.venues.length > 0 ? { venues: r.venues } : {}),
  };
  const rows = await store.query<{ strike: number; side: string; premium: number; trade_count: string; venue_list: string[] }>(sql, params);
  return {
    rows: rows.map((x) => ({ strike: x.strike, side: x.side, premium: x.premium, trades: Number(x.trade_count) })),
    venues: [...new Set(rows.flatMap((x) => x.venue_list))].sort(),
  };
}
