/**
 * Writes a tick's consolidated chain (option-chain.ts) into the retention tables of migration 059: every tick into
 * option_chain_snapshots (3 days), ticks on a 5-minute boundary also into option_chain_snapshots_5m (35 days), ticks
 * on an hour boundary also into option_chain_snapshots_1h (366 days). A cycle re-run after a crash stores nothing
 * twice (dedup token on the insert, a presence check before a copy). Written before gex_snapshots, so a tick resumed from its stored
 * venue rows already has its chain.
 */
import { msParam } from '#clickhouse/epoch-ms.ts';
import type { Store } from '#clickhouse/store.ts';
import type { MarketSymbol } from '#schemas/events.ts';
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

/**
 * The finest tier gets the rows (dedup token per table, symbol and tick); a coarser tier copies them from it inside
 * the store (INSERT … SELECT: no second JSON encode and parse), unless a retried cycle already copied that tick.
 */
export async function storeChainRows(store: Store, symbol: MarketSymbol, tick: number, rows: readonly OptionChainRow[]): Promise<void> {
  if (rows.length === 0) return;
  const [finest, ...coarser] = tiersOf(tick) as [ChainTier, ...ChainTier[]];
  await store.insert(finest.table, rows, { dedupToken: `${finest.table}:${symbol}:${tick}` });
  for (const tier of coarser) {
    const params = { symbol, t: tick };
    const present = await store.query<{ n: number }>(
      `SELECT toUInt32(count()) AS n FROM ${tier.table} WHERE symbol = {symbol:String} AND computed_at = ${msParam('t')}`,
      params,
    );
    if ((present[0]?.n ?? 0) > 0) continue;
    await store.command(
      `INSERT INTO ${tier.table} SELECT * FROM ${finest.table} WHERE symbol = {symbol:String} AND computed_at = ${msParam('t')}`,
      params,
    );
  }
}
