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
  readonly onStored?: (table: RawTable, rows: readonly RawRow[], storedAt: number) => void;
}

interface Pending {
  readonly byTable: Map<RawTable, RawRow[]>;
  readonly tokens: string[];
  readonly waiters: { resolve(): void; reject(err: unknown): void }[];
  rows: number;
}

/**
 * Merges the batches of several consumer-group members into one INSERT per table: chDB pays ~5 ms per INSERT, so
 * many small partition batches cost far more than one large one. Each `submit` resolves only after every row of
 * its batch is stored (so the member commits its offsets only then) and rejects if the combined insert failed
 * (the member then retries its batch). The combined dedup token is a hash of the member batches' tokens.
 */
export class CoalescingSink {
  private pending: Pending = emptyPending();
  private waiting = 0;
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Store,
    private readonly opts: CoalescingOptions,
  ) {}

  submit(batch: BatchRows): Promise<void> {
    const p = this.pending;
    for (const [table, rows] of batch.byTable) {
      let buf = p.byTable.get(table);
      if (!buf) p.byTable.set(table, (buf = []));
      for (const r of rows) buf.push(r);
      p.rows += rows.length;
    }
    p.tokens.push(batch.token);
    this.waiting++;
    const done = new Promise<void>((resolve, reject) => p.waiters.push({ resolve, reject }));
    if (this.waiting >= this.opts.writers || p.rows >= this.opts.maxRows) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.opts.lingerMs);
    return done;
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.pending;
    if (batch.waiters.length === 0) return;
    this.pending = emptyPending();
    this.waiting -= batch.waiters.length;
    this.chain = this.chain.then(() => this.write(batch));
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
