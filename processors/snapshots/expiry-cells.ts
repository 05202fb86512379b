/**
 * Net GEX by (expiry, strike) per venue (strike-expiry heatmap), both models, from the same prepared chain the
 * engine uses (prepareChain: canonical order, expired rows dropped, T floored, inventories clipped). Cells are
 * plain sums over contracts, so venue subsets re-aggregate by adding cells with equal (expiry, strike).
 */
import type { Venue } from '#schemas/events.ts';
import { contractGex, prepareChain } from '../analytics/gex.ts';
import type { ChainSnapshot } from '../analytics/types.ts';

export interface ExpiryCells {
  /** ms UTC, ascending by (expiry, strike). */
  readonly cell_expiry: readonly number[];
  readonly cell_strike: readonly number[];
  readonly cell_gex_std: readonly number[];
  readonly cell_gex_flow: readonly number[];
}

export function expiryCellsByVenue(chain: ChainSnapshot): Map<Venue, ExpiryCells> {
  const byVenue = new Map<Venue, Map<string, { expiry: number; strike: number; std: number; flow: number }>>();
  for (const ins of prepareChain(chain).open) {
    let cells = byVenue.get(ins.venue);
    if (cells === undefined) byVenue.set(ins.venue, (cells = new Map()));
    const key = `${ins.expiry}|${ins.strike}`;
    let c = cells.get(key);
    if (c === undefined) cells.set(key, (c = { expiry: ins.expiry, strike: ins.strike, std: 0, flow: 0 }));
    c.std += contractGex(ins.gamma, ins.qStd, chain.spot);
    c.flow += contractGex(ins.gamma, ins.qFlow, chain.spot);
  }
  const out = new Map<Venue, ExpiryCells>();
  for (const [venue, cells] of byVenue) {
    const list = [...cells.values()].sort((a, b) => a.expiry - b.expiry || a.strike - b.strike);
    out.set(venue, {
      cell_expiry: list.map((c) => c.expiry),
      cell_strike: list.map((c) => c.strike),
      cell_gex_std: list.map((c) => c.std),
      cell_gex_flow: list.map((c) => c.flow),
    });
  }
  return out;
}
