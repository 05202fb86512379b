/**
 * The engine's chain of one symbol as the snapshot processor saw it at a tick, rebuilt from the raw tables
 * (tickers, index and perp prices within the freshness windows, delistings) with the dealer inventory as of the
 * tick — the 'store' source of the cycle. Read by the greek-exposure routes until the consolidated chain table
 * (option_chain_snapshots, migration 051) is available to them.
 */
import type { Store } from '../../clickhouse/store.ts';
import type { MarketSymbol } from '../../schemas/events.ts';
import type { ChainSnapshot } from '../analytics/types.ts';
import type { ChainOptions } from './chain.ts';
import { chainWithInventory } from './compute-step.ts';
import { DEFAULT_SNAPSHOT_CONFIG } from './config.ts';
import { loadStateAsOf } from './rebuild.ts';

const DEFAULT_CHAIN_OPTIONS: ChainOptions = {
  tickerFreshnessMs: DEFAULT_SNAPSHOT_CONFIG.tickerFreshnessMs,
  priceFreshnessMs: DEFAULT_SNAPSHOT_CONFIG.priceFreshnessMs,
};

/** null when the tick has no chain (no fresh spot or no fresh tickers). */
export async function chainAsOf(store: Store, symbol: MarketSymbol, tick: number, opts: ChainOptions = DEFAULT_CHAIN_OPTIONS): Promise<ChainSnapshot | null> {
  const state = (await loadStateAsOf(store, symbol, tick, opts)).view(symbol);
  const r = await chainWithInventory(store, symbol, tick, state, opts);
  return r.kind === 'chain' ? r.chain : null;
}
