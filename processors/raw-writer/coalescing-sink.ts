import { createHash } from 'node:crypto';
import type { RawRow, RawTable } from '#clickhouse/rows.ts';
import type { Store } from '#clickhouse/store.ts';

/** Rows of one consumed batch, grouped by raw table, with the batch's idempotency token. */
export interface BatchRows {
  readonly byTable: ReadonlyMap<RawTable, readonly RawRow[]>;
  readonly token: string;
}

export interface CoalescingOptions {
  /** Consumers feeding this sink: when all of them wait on it, nothing more can arrive, so it flushes at once. */
  readonly writers: number;
  /** Flush as soon as this many rows are buffered. */
  readonly maxRows: number;
  /** Otherwise flush this long after the first buffered batch. */
  readonly lingerMs: number;
  /** A write starts at least this long after the previous one started, unless `maxRows` are waiting. Default 0. */
  readonly minIntervalMs?: number;
  /** Writes in flight at once, each with its own INSERT per table and its own batches. Default 1. */
  readonly maxWrites?: number;
  readonly onStored?: (table: RawTable, rows: readonly RawRow[], storedAt: number) => void;
}

interface Pending {
  readonly byTable: Map<RawTable, RawRow[]>;
  readonly tokens: string[];
  readonly waiters: { resolve(): void; reject(err: unknown): void }[];
  rows: number;
}

/**
 * Merges the batches of several consumer-group members into one INSERT per table: an INSERT has a fixed cost of
 * tens of milliseconds on the embedded engine (a part per table and per view target, the views' query plans, and the
 * merges every part causes later), so many small partition batches cost far more than one large one. At most
 * `maxWrites` writes are in flight (group commit): what arrives meanwhile gathers into the next write, so the INSERT
 * rate follows the store's speed instead of the batch rate; with two, the next write need not wait for a slow one (the
 * engine runs two INSERTs at once). Each `submit` resolves only after every row of its batch is stored
 * (so the member commits its offsets only then) and rejects if the combined insert failed (the member then retries
 * its batch). The combined dedup token is a hash of the member batches' tokens.
 */
export class CoalescingSink {
  private pending: Pending = emptyPending();
  /** When the pending batch got its first rows (the linger counts from there). */
  private pendingSince = 0;
  private waiting = 0;
  private timer: NodeJS.Timeout | null = null;
  /** Writes in flight. */
  private writing = 0;
  private lastStart = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly store: Store,
    private readonly opts: CoalescingOptions,
  ) {}

  submit(batch: BatchRows): Promise<void> {
    const p = this.pending;
    if (p.waiters.length === 0) this.pendingSince = Date.now();
    for (const [table, rows] of batch.byTable) {
      let buf = p.byTable.get(table);
      if (!buf) p.byTable.set(table, (buf = []));
      for (const r of rows) buf.push(r);
      p.rows += rows.length;
    }
    p.tokens.push(batch.token);
    this.waiting++;
    const done = new Promise<void>((resolve, reject) => p.waiters.push({ resolve, reject }));
    this.schedule();
    return done;
  }

  /**
   * Starts the write of the pending batch when it is due: at once when it holds `maxRows`; otherwise when every writer
   * waits on it, or `lingerMs` after its first rows, and in both cases not before `minIntervalMs` after the previous
   * write started. While `maxWrites` writes are in flight nothing starts; the end of one calls this.
   */
  private schedule(): void {
    if (this.writing >= (this.opts.maxWrites ?? 1) || this.pending.waiters.length === 0) return;
    const now = Date.now();
    const spaced = this.lastStart + (this.opts.minIntervalMs ?? 0) - now;
    const due = Math.max(this.waiting >= this.opts.writers ? 0 : this.pendingSince + this.opts.lingerMs - now, spaced);
    if (this.pending.rows >= this.opts.maxRows || due <= 0) {
      this.flush();
      return;
    }
    this.timer ??= setTimeout(() => {
      this.timer = null;
      this.schedule();
    }, due);
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.pending;
    this.pending = emptyPending();
    this.waiting -= batch.waiters.length;
    this.writing++;
    this.lastStart = Date.now();
    void this.write(batch).finally(() => {
      this.writing--;
      this.schedule();
    });
  }

  private async write(batch: Pending): Promise<void> {
    const token = createHash('sha1').update(batch.tokens.sort().join('\n')).digest('hex');
    try {
      for (const [table, rows] of batch.byTable) {
        await this.store.insert(table, rows, { dedupToken: `${token}:${table}` });
        this.opts.onStored?.(table, rows, Date.now());
      }
      for (const w of batch.waiters) w.resolve();
    } catch (err) {
      for (const w of batch.waiters) w.reject(err);
    }
  }
}

function emptyPending(): Pending {
  return { byTable: new Map(), tokens: [], waiters: [], rows: 0 };
}
