/**
 * Reads and writes of the dealer-flow tables (clickhouse/migrations/040_dealer_flow.sql).
 * A checkpoint is written as its dealer_inventory rows, then its dealer_inventory_ticks marker; only marked
 * checkpoints are read, so a crash between the two inserts leaves nothing visible. The rows' dedup token
 * carries a hash of their content: a retry with the same rows is stored once.
 */
import { createHash } from 'node:crypto';
import type { Store } from '#clickhouse/store.ts';
import type { MarketSymbol } from '#schemas/events.ts';
import { coinsOf, entryKey, entryOf, type BookEntry, type NanoRow } from './book.ts';
import { cellAt, type ColumnsResult, type ResultColumn } from '#clickhouse/store.ts';
import { CHANGES_SQL, CHECKPOINTS_SQL, FULL_CHECKPOINT_SQL, FULL_SCAN_SQL, TRADES_SINCE_SQL } from './sql.ts';

export interface CheckpointRefs {
  /** The latest complete checkpoint at or before the instant. */
  readonly last: number;
  /** The latest complete full checkpoint at or before `last`. */
  readonly base: number;
}

/** How far back the first look for checkpoint markers goes (full checkpoints are hourly by default). */
const REFS_LOOKBACK_MS = 6 * 3_600_000;

/** null when no full checkpoint exists at or before `asOfMs`. */
export async function checkpointRefs(store: Store, symbol: MarketSymbol, asOfMs: number): Promise<CheckpointRefs | null> {
  const asOf = Math.trunc(asOfMs);
  const read = async (since: number): Promise<CheckpointRefs | null> => {
    const rows = await store.query<{ at: number; full: boolean | number }>(CHECKPOINTS_SQL, { symbol, since, asOf });
    const last = rows[0];
    const base = rows.find((r) => Boolean(r.full));
    return last === undefined || base === undefined ? null : { last: last.at, base: base.at };
  };
  return (await read(asOf - REFS_LOOKBACK_MS)) ?? read(0);
}

/** Per-contract sums of the trades with ts in (fromMs, toMs] on contracts open at toMs. */
export async function tradesSince(store: Store, symbol: MarketSymbol, fromMs: number, toMs: number): Promise<NanoRow[]> {
  return store.query<NanoRow>(TRADES_SINCE_SQL, { symbol, from: Math.trunc(fromMs), to: Math.trunc(toMs), open: Math.trunc(toMs) });
}

/** The reference: every stored trade with ts ≤ asOf (cost grows with history). */
export async function fullScanEntries(store: Store, symbol: MarketSymbol, asOfMs: number): Promise<BookEntry[]> {
  return (await store.query<NanoRow>(FULL_SCAN_SQL, { symbol, asOf: Math.trunc(asOfMs) })).map(entryOf);
}

/** A full checkpoint's entries with their book keys (entryKey), computed once. */
interface FullCheckpoint {
  readonly entries: readonly BookEntry[];
  readonly keys: readonly string[];
}

/** Full checkpoints read so far, per store, `symbol|base` → the book then (LRU, a few hours' worth per symbol). */
const fullCheckpoints = new WeakMap<Store, Map<string, FullCheckpoint>>();
const FULL_CHECKPOINTS_KEPT = 8;

/** The rows of a column-wise result as NanoRows (plus `kind` when selected). */
function nanoRowsOf(r: ColumnsResult): (NanoRow & { readonly kind: string })[] {
  const col = (name: string): ResultColumn | undefined => r.columns[name];
  const [kind, venue, instrument, expiry, nano, count] = ['kind', 'venue', 'instrument', 'expiry_ms', 'nano', 'trade_count'].map(col);
  const out: (NanoRow & { readonly kind: string })[] = new Array(r.rows);
  for (let i = 0; i < r.rows; i++) {
    out[i] = {
      kind: kind === undefined ? '' : String(cellAt(kind, i)),
      venue: String(cellAt(venue as ResultColumn, i)),
      instrument: String(cellAt(instrument as ResultColumn, i)),
      expiry_ms: Number(cellAt(expiry as ResultColumn, i)),
      nano: String(cellAt(nano as ResultColumn, i)),
      trade_count: Number(cellAt(count as ResultColumn, i)),
    };
  }
  return out;
}

/** The whole book at the full checkpoint `base` (immutable once its marker is written: read once, then cached). */
async function fullCheckpoint(store: Store, symbol: MarketSymbol, base: number): Promise<FullCheckpoint> {
  let perStore = fullCheckpoints.get(store);
  if (perStore === undefined) {
    perStore = new Map();
    fullCheckpoints.set(store, perStore);
  }
  const key = `${symbol}|${base}`;
  const held = perStore.get(key);
  if (held !== undefined) {
    perStore.delete(key); // most recently used last
    perStore.set(key, held);
    return held;
  }
  const entries = nanoRowsOf(await store.queryColumns(FULL_CHECKPOINT_SQL, { symbol, base })).map(entryOf);
  const full: FullCheckpoint = { entries, keys: entries.map((e) => entryKey(e.venue, e.instrument, e.expiry)) };
  perStore.set(key, full);
  for (const old of perStore.keys()) {
    if (perStore.size <= FULL_CHECKPOINTS_KEPT) break;
    perStore.delete(old);
  }
  return full;
}

/**
 * Inventory entries as of any instant: the nearest complete checkpoint at or before it plus the trades after
 * it; before the first checkpoint, the full scan. Same numbers as fullScanEntries. The checkpoint is the latest
 * full one (cached in memory, see fullCheckpoint) with the newest incremental row per contract after it applied.
 */
export async function entriesAsOf(store: Store, symbol: MarketSymbol, asOfMs: number): Promise<BookEntry[]> {
  const asOf = Math.trunc(asOfMs);
  const refs = await checkpointRefs(store, symbol, asOf);
  if (refs === null) return fullScanEntries(store, symbol, asOf);
  const [base, changes] = await Promise.all([
    fullCheckpoint(store, symbol, refs.base),
    store.queryColumns(CHANGES_SQL, { symbol, base: refs.base, last: refs.last, asOf }),
  ]);
  // Checkpoint rows ('c') replace the full checkpoint's entry (absolute inventories); trade sums ('t') add.
  const replaced = new Map<string, BookEntry>();
  const added = new Map<string, BookEntry>();
  for (const r of nanoRowsOf(changes)) (r.kind === 'c' ? replaced : added).set(entryKey(r.venue, r.instrument, r.expiry_ms), entryOf(r));
  const out: BookEntry[] = [];
  const withTrades = (key: string, e: BookEntry): BookEntry => {
    const t = added.get(key);
    if (t === undefined) return e;
    added.delete(key);
    return { ...e, nano: e.nano + t.nano, trades: e.trades + t.trades };
  };
  for (let i = 0; i < base.entries.length; i++) {
    const e = base.entries[i] as BookEntry;
    if (e.expiry <= asOf) continue;
    const key = base.keys[i] as string;
    const r = replaced.get(key);
    if (r !== undefined) replaced.delete(key);
    out.push(withTrades(key, r ?? e));
  }
  for (const [key, r] of replaced) out.push(withTrades(key, r)); // contracts first traded after `base`
  for (const t of added.values()) out.push(t); // … or after `last`
  return out;
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
  await store.insert(
    'dealer_inventory_ticks',
    [{ symbol: w.symbol, checkpoint_at: w.at, full: w.full, rows: rows.length, new_trades: w.newTrades }],
    {
      dedupToken: `${token}:tick`,
    },
  );
}
