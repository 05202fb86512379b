/**
 * Dealer positioning models.
 * - std: dealer long calls, short puts: signed quantity = +OI for calls, −OI for puts.
 * - flow: signed quantity = measured dealer inventory (= −cumulative taker-signed size, clipped to ±OI).
 *   Only BTCUSDT/ETHUSDT; any other symbol, or a scope without any measured inventory, falls back to std and
 *   the model that actually ran is reported.
 */
import type { MarketSymbol, OptionType, TakerSide } from '#schemas/events.ts';
import type { DealerModel } from './types.ts';

export const FLOW_SYMBOLS: readonly MarketSymbol[] = ['BTCUSDT', 'ETHUSDT'];

export function stdQuantity(type: OptionType, openInterest: number): number {
  return type === 'call' ? openInterest : -openInterest;
}

/** Clip an inventory to ±OI (a dealer cannot hold more than the open interest). Non-finite → 0. */
export function clipInventory(inventory: number, openInterest: number): number {
  if (!Number.isFinite(inventory)) return 0;
  const oi = Math.max(0, openInterest);
  return inventory > oi ? oi : inventory < -oi ? -oi : inventory;
}

/** Flow-model signed quantity; an instrument without measured inventory holds 0 (no trades seen). */
export function flowQuantity(dealerInventory: number | undefined, openInterest: number): number {
  return dealerInventory === undefined ? 0 : clipInventory(dealerInventory, openInterest);
}

/** The model that actually runs for a request. */
export function resolveModel(requested: DealerModel, symbol: MarketSymbol, hasInventory: boolean): DealerModel {
  if (requested === 'flow' && FLOW_SYMBOLS.includes(symbol) && hasInventory) return 'flow';
  return 'std';
}

export interface TakerTrade {
  readonly instrument: string;
  /** Trade time, ms UTC. */
  readonly ts: number;
  /** Coins, positive. */
  readonly size: number;
  /** Taker (aggressor) side. */
  readonly side: TakerSide;
}

export interface OpenContract {
  readonly openInterest: number;
  /** ms UTC */
  readonly expiry: number;
}

/**
 * Dealer inventory per instrument as of `asOf` (ms): −Σ taker-signed size over trades with ts <= asOf,
 * clipped to ±OI. Instruments not in `contracts` or with expiry <= asOf are dropped (inventory is discarded
 * at expiry). Instruments in `contracts` without trades get 0.
 */
export function dealerInventoryAsOf(
  trades: readonly TakerTrade[],
  asOf: number,
  contracts: ReadonlyMap<string, OpenContract>,
): Map<string, number> {
  const taker = new Map<string, number>();
  for (const t of trades) {
    if (!(t.ts <= asOf) || !Number.isFinite(t.size)) continue;
    const c = contracts.get(t.instrument);
    if (c === undefined || c.expiry <= asOf) continue;
    const signed = t.side === 'buy' ? t.size : -t.size;
    taker.set(t.instrument, (taker.get(t.instrument) ?? 0) + signed);
  }
  const out = new Map<string, number>();
  const names = [...contracts.keys()].sort();
  for (const name of names) {
    const c = contracts.get(name);
    if (c === undefined || c.expiry <= asOf) continue;
    // `+ 0` turns −0 into 0 so outputs compare equal.
    out.set(name, clipInventory(-(taker.get(name) ?? 0), c.openInterest) + 0);
  }
  return out;
}
