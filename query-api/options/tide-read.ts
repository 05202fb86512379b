/**
 * Deribit premium and notional per (grid bucket, type, taker side) from the tape aggregate option_tape_1m,
 * trades in [fromMs, toMs] on contracts expiring in (fromMs, expiryToMs].
 */
import { msParam } from '#clickhouse/epoch-ms.ts';
import type { Store } from '#clickhouse/store.ts';
import type { TideCell } from '#processors/analytics/premium-tide.ts';
import type { MarketSymbol } from '#schemas/events.ts';

export interface TideRead {
  readonly symbol: MarketSymbol;
  readonly fromMs: number;
  readonly toMs: number;
  readonly expiryToMs: number;
  readonly stepMs: number;
}

export async function readTideCells(store: Store, r: TideRead): Promise<TideCell[]> {
  const sql = `SELECT intDiv(toInt64(toUnixTimestamp(bucket)) * 1000 - {fromNum:Int64}, {step:Int64}) AS idx, option_type, side, sum(premium_usd) AS prem, sum(notional_usd) AS notl
FROM option_tape_1m
WHERE symbol = {symbol:String} AND venue = 'deribit' AND bucket >= ${msParam('from')} AND bucket <= ${msParam('to')}
  AND expiry > ${msParam('from')} AND expiry <= ${msParam('expiryTo')}
GROUP BY idx, option_type, side`;
  const rows = await store.query<{ idx: string; option_type: string; side: string; prem: number; notl: number }>(sql, {
    symbol: r.symbol,
    from: Math.trunc(r.fromMs),
    fromNum: Math.trunc(r.fromMs),
    to: Math.trunc(r.toMs),
    expiryTo: Math.trunc(r.expiryToMs),
    step: Math.trunc(r.stepMs),
  });
  return rows.map((x) => ({
    t: r.fromMs + Number(x.idx) * r.stepMs,
    type: x.option_type,
    side: x.side,
    premium: x.prem,
    notional: x.notl,
  }));
}
