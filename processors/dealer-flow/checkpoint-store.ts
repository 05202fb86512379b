/**
 * Reads and writes of the dealer-flow tables (clickhouse/migrations/040_dealer_flow.sql).
 * A checkpoint is written as its dealer_inventory rows, then its dealer_inventory_ticks marker; only marked
 * checkpoints are read, so a crash between the two inserts leaves nothing visible. The rows' dedup token
 * carries a hash of their content: a retry with the same rows is stored once.
 */
import { createHash } from 'node:crypto';
import type { Store } from '../../clickhouse/store.ts';
import type { MarketSymbol } from '../../schemas/events.ts';
import { coinsOf, entryOf, type BookEntry, type NanoRow } from './book.ts';
import { AS_OF_SQL, CHECKPOINTS_SQL, FULL_SCAN_SQL, TRADES_SINCE_SQL } from './sql.ts';

export interface CheckpointRefs {
  /** The latest complete checkpoint at or before the instant. */
  readonly last: number;
  /** The latest complete full checkpoint at or before `last`. */
  readonly base: number;
}

/** null when no full checkpoint exists at or before `asOfMs`. */
export async function checkpointRefs(store: Store, symbol: MarketSymbol, asOfMs: number): Promise<CheckpointRefs | null> {
  const rows = await store.query<{ at: number; full: boolean | number }>(CHECKPOINTS_SQL, { symbol, asOf: Math.trunc(asOfMs) });
  const last = rows[0];
  const base = rows.find((r) => Boolean(r.full));
  return last === undefined || base === undefined ? null : { last: last.at, base: base.at };
}

/** Per-contract sums of the trades with ts in (fromMs, toMs] on contracts open at toMs. */
export async function tradesSince(store: Store, symbol: MarketSymbol, fromMs: number, toMs: number): Promise<NanoRow[]> {
  return store.query<NanoRow>(TRADES_SINCE_SQL, { symbol, from: Math.trunc(fromMs), to: Math.trunc(toMs), open: Math.trunc(toMs) });
}

/** The reference: every stored trade with ts ≤ asOf (cost grows with history). */
export async function fullScanEntries(store: Store, symbol: MarketSymbol, asOfMs: number): Promise<BookEntry[]> {
  return (await store.query<NanoRow>(FULL_SCAN_SQL, { symbol, asOf: Math.trunc(asOfMs) })).map(entryOf);
}

/**
 * Inventory entries as of any instant: the nearest complete checkpoint at or before it plus the trades after
 * it; before the first checkpoint, the full scan. Same numbers as fullScanEntries.
 */
export async function entriesAsOf(store: Store, symbol: MarketSymbol, asOfMs: number): Promise<BookEntry[]> {
  const refs = await checkpointRefs(store, symbol, asOfMs);
  if (refs === null) return fullScanEntries(store, symbol, asOfMs);
  const rows = await store.query<NanoRow>(AS_OF_SQL, { symbol, base: refs.base, last: refs.last, asOf: Math.trunc(asOfMs) });
  return rows.map(entryOf);
}

export interface CheckpointWrite {
  readonly symbol: MarketSymbol;
  readonly at: number;
  readonly full: boolean;
  readonly entries: readonly BookEntry[];
  readonly newTrades: number;
}

export async function writeCheckpoint(store: Store, w: CheckpointWrite): Promise<void> {
  const rows = w.entries.map((e) => ({
    symbol: w.symbol,
    checkpoint_at: w.at,
    venue: e.venue,
    instrument: e.instrument,
    expiry: e.expiry,
    inventory: coinsOf(e.nano),
    inventory_nano: e.nano.toString(),
    trades: e.trades,
    full: w.full,
  }));
  const token = `dealer_inventory:${w.symbol}:${w.at}`;
  if (rows.length > 0) {
    const hash = createHash('sha256').update(JSON.stringify(rows)).digest('hex').slice(0, 16);
    await store.insert('dealer_inventory', rows, { dedupToken: `${token}:${hash}` });
  }
  await store.insert('dealer_inventory_ticks', [{ symbol: w.symbol, checkpoint_at: w.at, full: w.full, rows: rows.length, new_trades: w.newTrades }], {
    dedupToken: `${token}:tick`,
  });
}
