/**
 * Step 1 of a cycle: one symbol's state at a tick → the venue rows to store (tagged result).
 * Flow symbols (BTCUSDT, ETHUSDT) get their dealer inventory as of the tick from the dealer-flow checkpoints
 * (processors/dealer-flow: nearest checkpoint at or before the tick + the stored trades after it);
 * the others run std only (their flow rows are zero and has_inventory false, so flow falls back to std).
 */
import type { MarketSymbol, Venue } from '#schemas/events.ts';
import type { Store } from '#clickhouse/store.ts';
import { FLOW_SYMBOLS } from '../analytics/dealer.ts';
import { buildVenueRows } from '../analytics/snapshot-row.ts';
import { inventoryMap } from '../dealer-flow/book.ts';
import { entriesAsOf } from '../dealer-flow/checkpoint-store.ts';
import type { ChainSnapshot } from '../analytics/types.ts';
import { buildChain } from './chain.ts';
import type { ChainOptions, ChainResult, NamedInstrument } from './chain.ts';
import { expiryCellsByVenue } from './expiry-cells.ts';
import type { ExpiryCells } from './expiry-cells.ts';
import { inventoryStatsByVenue } from './inventory-stats.ts';
import type { InventoryStats } from './inventory-stats.ts';
import type { SnapshotSource, StoredSnapshotRow } from './snapshot-record.ts';
import type { SymbolState } from './state.ts';

export type ComputeResult =
  | {
      readonly kind: 'snapshot';
      readonly chain: ChainSnapshot;
      readonly instruments: readonly NamedInstrument[];
      readonly rows: readonly StoredSnapshotRow[];
    }
  | { readonly kind: 'skipped'; readonly reason: 'no_spot' | 'no_instruments' };

const NO_CELLS: ExpiryCells = { cell_expiry: [], cell_strike: [], cell_gex_std: [], cell_gex_flow: [] };
const NO_STATS: InventoryStats = { inv_contracts: 0, inv_net: 0, inv_abs: 0, inv_unclipped_net: 0, oi_total: 0 };

/** Pure part: chain → rows (venue rows of the engine + heatmap cells + inventory statistics). */
export function rowsFromChain(chain: ChainSnapshot, source: SnapshotSource): StoredSnapshotRow[] {
  const cells = expiryCellsByVenue(chain);
  const stats = inventoryStatsByVenue(chain);
  return buildVenueRows(chain).map((r) => ({
    ...r,
    ...(cells.get(r.venue as Venue) ?? NO_CELLS),
    ...(stats.get(r.venue as Venue) ?? NO_STATS),
    source,
  }));
}

export async function computeSnapshot(
  store: Store,
  symbol: MarketSymbol,
  tick: number,
  state: SymbolState,
  opts: ChainOptions,
  source: SnapshotSource,
): Promise<ComputeResult> {
  const r = await chainWithInventory(store, symbol, tick, state, opts);
  if (r.kind !== 'chain') return { kind: 'skipped', reason: r.kind };
  return { kind: 'snapshot', chain: r.chain, instruments: r.instruments, rows: rowsFromChain(r.chain, source) };
}

/** The chain of a tick with the flow symbols' dealer inventory as of the tick (dealer-flow checkpoints). */
export async function chainWithInventory(
  store: Store,
  symbol: MarketSymbol,
  tick: number,
  state: SymbolState,
  opts: ChainOptions,
): Promise<ChainResult> {
  const probe = buildChain(symbol, state, tick, opts);
  if (probe.kind !== 'chain') return probe;
  const inventory = FLOW_SYMBOLS.includes(symbol) ? inventoryMap(await entriesAsOf(store, symbol, tick)) : new Map<string, number>();
  return inventory.size === 0 ? probe : buildChain(symbol, state, tick, opts, inventory);
}
