/**
 * Writes a tick's consolidated chain (option-chain.ts) into the retention tables of migration 059: every tick into
 * option_chain_snapshots (3 days), ticks on a 5-minute boundary also into option_chain_snapshots_5m (35 days), ticks
 * on an hour boundary also into option_chain_snapshots_1h (366 days). One dedup token per (table, symbol, tick): a
 * cycle re-run after a crash stores nothing twice. Written before gex_snapshots, so a tick resumed from its stored
 * venue rows already has its chain.
 */
import type { Store } from '../../clickhouse/store.ts';
import type { MarketSymbol } from '../../schemas/events.ts';
import type { OptionChainRow } from './option-chain.ts';

export interface ChainTier {
  readonly table: string;
  /** A tick is stored in this tier when it is a multiple of stepMs (UTC epoch). */
  readonly stepMs: number;
  /** Rows older than this are dropped by the table's TTL. */
  readonly keepMs: number;
}

const DAY_MS = 86_400_000;

/** Finest first. The reader picks the finest tier whose retention still covers the instant. */
export const CHAIN_TIERS: readonly ChainTier[] = [
  { table: 'option_chain_snapshots', stepMs: 30_000, keepMs: 3 * DAY_MS },
  { table: 'option_chain_snapshots_5m', stepMs: 300_000, keepMs: 35 * DAY_MS },
  { table: 'option_chain_snapshots_1h', stepMs: 3_600_000, keepMs: 366 * DAY_MS },
];

/** The tiers a tick is written to (the first always: every tick is a 30 s tick). */
export function tiersOf(tick: number): ChainTier[] {
  return CHAIN_TIERS.filter((t, i) => i === 0 || tick % t.stepMs === 0);
}

export async function storeChainRows(store: Store, symbol: MarketSymbol, tick: number, rows: readonly OptionChainRow[]): Promise<void> {
  if (rows.length === 0) return;
  for (const tier of tiersOf(tick)) await store.insert(tier.table, rows, { dedupToken: `${tier.table}:${symbol}:${tick}` });
}
