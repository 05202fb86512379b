/**
 * Flow-model inventory statistics per venue over the chain's open contracts (expiry > now):
 * contracts with a measured inventory, Σ clipped inventory, Σ |clipped|, Σ unclipped, Σ OI.
 * Coverage = Σ|inv| / ΣOI (design §2.2), re-aggregable over venues by summing both.
 */
import type { Venue } from '#schemas/events.ts';
import { clipInventory } from '../analytics/dealer.ts';
import type { ChainSnapshot } from '../analytics/types.ts';

export interface InventoryStats {
  readonly inv_contracts: number;
  readonly inv_net: number;
  readonly inv_abs: number;
  readonly inv_unclipped_net: number;
  readonly oi_total: number;
}

export function inventoryStatsByVenue(chain: ChainSnapshot): Map<Venue, InventoryStats> {
  const out = new Map<Venue, { inv_contracts: number; inv_net: number; inv_abs: number; inv_unclipped_net: number; oi_total: number }>();
  const sorted = [...chain.instruments].sort(
    (a, b) => a.expiry - b.expiry || a.strike - b.strike || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0),
  );
  for (const ins of sorted) {
    if (ins.expiry <= chain.now) continue;
    let s = out.get(ins.venue);
    if (s === undefined) out.set(ins.venue, (s = { inv_contracts: 0, inv_net: 0, inv_abs: 0, inv_unclipped_net: 0, oi_total: 0 }));
    const oi = Number.isFinite(ins.openInterest) && ins.openInterest > 0 ? ins.openInterest : 0;
    s.oi_total += oi;
    if (ins.dealerInventory === undefined) continue;
    const clipped = clipInventory(ins.dealerInventory, oi);
    s.inv_contracts++;
    s.inv_net += clipped;
    s.inv_abs += Math.abs(clipped);
    s.inv_unclipped_net += ins.dealerInventory;
  }
  return out;
}

/** Σ|inv| / ΣOI over stats of several venues; null when there is no OI or no measured inventory. */
export function coverageOf(stats: readonly InventoryStats[]): number | null {
  let abs = 0;
  let oi = 0;
  let n = 0;
  for (const s of stats) {
    abs += s.inv_abs;
    oi += s.oi_total;
    n += s.inv_contracts;
  }
  return oi > 0 && n > 0 ? abs / oi : null;
}
