/**
 * `include=candles` of /v2/gex/levels: 1-minute candles of the CANDLE_HOURS before the snapshot instant, from
 * the market-series table market_trades_1m (migration 020), perpetual and spot trades of every venue merged
 * into one series (open = first trade, close = last, volume in coins). Only minutes closed at the snapshot
 * instant are served (a minute after computed_at is never included), minutes without trades are left out.
 */
import type { Store } from '#clickhouse/store.ts';
import type { MarketSymbol } from '#schemas/events.ts';

export const CANDLE_HOURS = 4;
const MINUTE_MS = 60_000;

export interface Candle {
  readonly datetime: string;
  readonly open: number;
  readonly high: number;
  readonly low: number;
  readonly close: number;
  readonly volume: number;
}

const CANDLES = `SELECT toFloat64(toUnixTimestamp(bucket)) * 1000 AS t, argMinMerge(open) AS o, max(high) AS h, min(low) AS l,
  argMaxMerge(close) AS c, sum(volume) AS v
FROM market_trades_1m
WHERE symbol = {symbol:String} AND bucket >= toDateTime({from:Int64}, 'UTC') AND bucket < toDateTime({to:Int64}, 'UTC')
GROUP BY bucket ORDER BY bucket`;

/** Candles of the minutes [end − hours, end) closed at `endMs`. */
export async function candlesBefore(store: Store, symbol: MarketSymbol, endMs: number, hours = CANDLE_HOURS): Promise<Candle[]> {
  const to = Math.floor(endMs / MINUTE_MS) * 60;
  const rows = await store.query<{ t: number; o: number; h: number; l: number; c: number; v: number }>(CANDLES, {
    symbol,
    from: to - hours * 3600,
    to,
  });
  return rows.map((r) => ({ datetime: new Date(r.t).toISOString(), open: r.o, high: r.h, low: r.l, close: r.c, volume: r.v }));
}
