import type { Store } from '#clickhouse/store.ts';

/** Minutes [fromMs, toMs) that already hold trades of a symbol: the backfill leaves them alone. */
export interface Occupied {
  readonly fromMs: number;
  readonly toMs: number;
}

/**
 * Per symbol, the span of 1-minute trade buckets already stored inside [fromMs, toMs) (first to last, inclusive
 * of the last minute), from the market_trades_1m states. A symbol without data in the range is absent.
 */
export async function occupiedSpans(
  store: Store,
  symbols: readonly string[],
  fromMs: number,
  toMs: number,
): Promise<ReadonlyMap<string, Occupied>> {
  const rows = await store.query<{ symbol: string; first_s: number; last_s: number }>(
    `SELECT toString(symbol) AS symbol, toUInt32(toUnixTimestamp(min(bucket))) AS first_s, toUInt32(toUnixTimestamp(max(bucket))) AS last_s
     FROM market_trades_1m
     WHERE has({symbols:Array(String)}, symbol) AND bucket >= toDateTime({from:UInt32}, 'UTC') AND bucket < toDateTime({to:UInt32}, 'UTC')
     GROUP BY symbol`,
    { symbols: [...symbols], from: Math.floor(fromMs / 1000), to: Math.ceil(toMs / 1000) },
  );
  return new Map(rows.map((r) => [r.symbol, { fromMs: r.first_s * 1000, toMs: r.last_s * 1000 + 60_000 }]));
}

/** True when an event of `symbol` at `ts` may be written (outside the symbol's occupied span). */
export function isFree(spans: ReadonlyMap<string, Occupied>, symbol: string, ts: number): boolean {
  const o = spans.get(symbol);
  return o === undefined || ts < o.fromMs || ts >= o.toMs;
}
