/**
 * Inputs of /v2/options/range from the store: the price at each hour start (first perp trade of the hour across
 * venues, market_trades_1h `open`) and Deribit DVOL at each hour start (vol_index_1h `open`), from `fromMs`;
 * the latest price and DVOL are the `close` of their newest hour.
 */
import { msParam } from '#clickhouse/epoch-ms.ts';
import type { Store } from '#clickhouse/store.ts';
import type { RangeInput } from '#processors/analytics/range.ts';
import type { HourPoint } from '#processors/analytics/range-calibration.ts';
import type { MarketSymbol } from '#schemas/events.ts';

type HourRow = { t: number; open: number; close: number };

export type RangeSeries = Pick<RangeInput, 'spot' | 'dvol' | 'prices' | 'dvols'>;

const points = (rows: readonly HourRow[]): HourPoint[] => rows.map((r) => ({ t: r.t, value: r.open }));
const latest = (rows: readonly HourRow[]): number | null => rows.at(-1)?.close ?? null;

export async function readRangeSeries(store: Store, symbol: MarketSymbol, fromMs: number, toMs: number): Promise<RangeSeries> {
  const params = { symbol, from: Math.trunc(fromMs), to: Math.trunc(toMs) };
  const [prices, dvols] = await Promise.all([
    store.query<HourRow>(
      `SELECT toFloat64(toUnixTimestamp(bucket)) * 1000 AS t, argMinMerge(open) AS open, argMaxMerge(close) AS close
FROM market_trades_1h
WHERE symbol = {symbol:String} AND market = 'perp' AND bucket >= ${msParam('from')} AND bucket <= ${msParam('to')}
GROUP BY bucket ORDER BY bucket`,
      params,
    ),
    store.query<HourRow>(
      `SELECT toFloat64(toUnixTimestamp(bucket)) * 1000 AS t, argMinMerge(open) AS open, argMaxMerge(close) AS close
FROM vol_index_1h
WHERE symbol = {symbol:String} AND venue = 'deribit' AND bucket >= ${msParam('from')} AND bucket <= ${msParam('to')}
GROUP BY bucket ORDER BY bucket`,
      params,
    ),
  ]);
  return { spot: latest(prices), dvol: latest(dvols), prices: points(prices), dvols: points(dvols) };
}
