/**
 * Call and put open interest per (5-minute point, venue) from option_tickers: per contract its last reported
 * OI in the bucket, contracts still open at the bucket's end. Point instant = bucket end.
 */
import type { Store } from '#clickhouse/store.ts';
import type { OiCell } from '#processors/analytics/pcr.ts';
import type { MarketSymbol } from '#schemas/events.ts';
import { msParam } from '#clickhouse/epoch-ms.ts';

export const PCR_STEP_MS = 300_000;

export async function readOiCells(store: Store, symbol: MarketSymbol, fromMs: number, toMs: number): Promise<OiCell[]> {
  const sql = `SELECT idx, venue_name, sumIf(oi_last, otype = 'call') AS call_oi, sumIf(oi_last, otype = 'put') AS put_oi
FROM (
  SELECT intDiv(toUnixTimestamp64Milli(ts) - {fromNum:Int64}, {step:Int64}) AS idx, toString(venue) AS venue_name, instrument,
         argMax(assumeNotNull(open_interest), ts) AS oi_last, any(option_type) AS otype, any(toUnixTimestamp64Milli(expiry)) AS exp_ms
  FROM option_tickers
  WHERE symbol = {symbol:String} AND ts >= ${msParam('from')} AND ts < ${msParam('to')} AND open_interest IS NOT NULL AND isFinite(assumeNotNull(open_interest))
  GROUP BY idx, venue_name, instrument
)
WHERE exp_ms > {fromNum:Int64} + (idx + 1) * {step:Int64}
GROUP BY idx, venue_name`;
  const rows = await store.query<{ idx: string; venue_name: string; call_oi: number; put_oi: number }>(sql, {
    symbol,
    from: Math.trunc(fromMs),
    fromNum: Math.trunc(fromMs),
    to: Math.trunc(toMs),
    step: PCR_STEP_MS,
  });
  return rows.map((r) => ({ t: fromMs + (Number(r.idx) + 1) * PCR_STEP_MS, venue: r.venue_name, callOi: r.call_oi, putOi: r.put_oi }));
}
