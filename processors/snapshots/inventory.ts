/**
 * Flow-model dealer inventory rebuilt from the stored trades, as of any instant: per (venue, instrument),
 * inventory = −Σ taker-signed size (buy +, sell −) over every trade with ts ≤ asOf of a contract that has not
 * expired at asOf (inventory is discarded at expiry). Trades are deduplicated by id (FINAL: a redelivered
 * trade has the same sort key (symbol, ts, venue, id), so it collapses). The value is NOT clipped here: the
 * engine clips to ±OI of the snapshot (dealer.ts clipInventory), because OI belongs to the chain.
 * One full-scan aggregate query (cost grows with history): the floating-point reference the dealer-flow
 * checkpoints (processors/dealer-flow, which the snapshot cycle reads) are cross-checked against in tests.
 */
import type { Store } from '#clickhouse/store.ts';
import type { MarketSymbol } from '#schemas/events.ts';
import { msParam } from '#clickhouse/epoch-ms.ts';
import { instrumentKey } from './state.ts';

export interface InventoryEntry {
  readonly venue: string;
  readonly instrument: string;
  /** Dealer inventory in coins, unclipped. */
  readonly inventory: number;
  readonly trades: number;
}

const SQL = `SELECT venue, instrument, -sum(if(side = 'buy', size, -size)) AS inventory, count() AS trades
FROM option_trades FINAL
WHERE symbol = {symbol:String} AND ts <= ${msParam('asOf')} AND expiry > ${msParam('asOf')} AND isFinite(size)
GROUP BY venue, instrument
ORDER BY venue, instrument`;

export async function inventoryRows(store: Store, symbol: MarketSymbol, asOfMs: number): Promise<InventoryEntry[]> {
  const rows = await store.query<{ venue: string; instrument: string; inventory: number; trades: string }>(SQL, {
    symbol,
    asOf: Math.trunc(asOfMs),
  });
  // `+ 0` turns −0 into 0.
  return rows.map((r) => ({ venue: r.venue, instrument: r.instrument, inventory: r.inventory + 0, trades: Number(r.trades) }));
}

/** Unclipped dealer inventory per `venue|instrument` as of `asOfMs` (contracts without trades are absent). */
export async function inventoryAsOf(store: Store, symbol: MarketSymbol, asOfMs: number): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const r of await inventoryRows(store, symbol, asOfMs)) out.set(instrumentKey(r.venue, r.instrument), r.inventory);
  return out;
}
