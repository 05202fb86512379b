/**
 * The dealer-flow processor: per symbol an in-memory DealerBook moved forward at every tick by the trades
 * stored since the previous checkpoint, then checkpointed. A tick's cost is the trades since the last tick
 * (one range read on the option_trades sort key) plus the changed contracts, not the history.
 *
 * Checkpoint instant of tick T: c = T − lagMs aligned down to the interval. The lag lets trades that reach the
 * store up to lagMs after their timestamp still land before their checkpoint is written (a trade stored later
 * than that is in the full scan but not in the checkpoints: documented limitation). Reads as of any instant
 * (entriesAsOf) use the nearest checkpoint at or before it plus the trades after it.
 *
 * Restart: the book is reloaded from the latest complete checkpoint (marker row) and moved forward from there;
 * the first checkpoint a process writes is full. Re-running a checkpoint writes the same rows (dedup token),
 * and nothing is read from a checkpoint without its marker, so a crash never double counts.
 */
import type { Store } from '#clickhouse/store.ts';
import type { MarketSymbol } from '#schemas/events.ts';
import { DealerBook, inventoryMap } from './book.ts';
import { checkpointRefs, entriesAsOf, fullScanEntries, tradesSince, writeCheckpoint } from './checkpoint-store.ts';
import type { NanoRow } from './book.ts';

export interface DealerFlowOptions {
  /** Checkpoint cadence (the snapshot interval), ms. */
  readonly intervalMs: number;
  /** How far checkpoints trail the tick, ms (≥ 0). Default 2 intervals. */
  readonly lagMs?: number;
  /** Full checkpoints at instants aligned to this, ms. Default 1 h. */
  readonly fullEveryMs?: number;
}

export interface TickResult {
  readonly checkpointAt: number;
  readonly written: boolean;
  readonly full: boolean;
  readonly rows: number;
  readonly newTrades: number;
}

export class DealerFlow {
  private readonly books = new Map<MarketSymbol, DealerBook>();
  private readonly lagMs: number;
  private readonly fullEveryMs: number;

  constructor(
    private readonly store: Store,
    private readonly opts: DealerFlowOptions,
  ) {
    this.lagMs = opts.lagMs ?? 2 * opts.intervalMs;
    this.fullEveryMs = opts.fullEveryMs ?? 3_600_000;
  }

  checkpointInstant(tick: number): number {
    const c = tick - this.lagMs;
    return c - (((c % this.opts.intervalMs) + this.opts.intervalMs) % this.opts.intervalMs);
  }

  /** Moves the symbol's book to the tick's checkpoint instant and writes the checkpoint (idempotent). */
  async tick(symbol: MarketSymbol, tick: number): Promise<TickResult> {
    const c = this.checkpointInstant(tick);
    const held = this.books.get(symbol);
    const loaded = held === undefined ? await this.load(symbol, c) : null;
    const book = held ?? loaded?.book;
    if (book === undefined) throw new Error('unreachable: no dealer book');
    if (c <= book.at && loaded?.fromScan !== true) {
      this.books.set(symbol, book);
      return { checkpointAt: c, written: false, full: false, rows: 0, newTrades: 0 };
    }
    const deltas: NanoRow[] = c > book.at ? await tradesSince(this.store, symbol, book.at, c) : [];
    const changed = book.advance(c, deltas);
    const full = loaded !== null || c % this.fullEveryMs === 0;
    const entries = full ? book.all() : changed;
    const newTrades = deltas.reduce((s, d) => s + Number(d.trade_count), 0);
    try {
      await writeCheckpoint(this.store, { symbol, at: c, full, entries, newTrades });
      this.books.set(symbol, book);
    } catch (err) {
      this.books.delete(symbol); // reloaded from the store at the next tick
      throw err;
    }
    return { checkpointAt: c, written: true, full, rows: entries.length, newTrades };
  }

  /** Unclipped inventory per `venue|instrument` as of the instant (the snapshot's flow model). */
  async inventoryAt(symbol: MarketSymbol, asOfMs: number): Promise<Map<string, number>> {
    return inventoryMap(await entriesAsOf(this.store, symbol, asOfMs));
  }

  /**
   * The book at the latest complete checkpoint ≤ c. With none (first start, or history older than every
   * checkpoint): the full scan as of c, to be written as the first (full) checkpoint.
   */
  private async load(symbol: MarketSymbol, c: number): Promise<{ readonly book: DealerBook; readonly fromScan: boolean }> {
    const refs = await checkpointRefs(this.store, symbol, c);
    if (refs === null) return { book: new DealerBook(c, await fullScanEntries(this.store, symbol, c)), fromScan: true };
    return { book: new DealerBook(refs.last, await entriesAsOf(this.store, symbol, refs.last)), fromScan: false };
  }
}
