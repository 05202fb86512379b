import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Store } from '#clickhouse/store.ts';

/** Rows per usage_events insert. */
const FLUSH_ROWS = 500;

const keyOf = (userId: string, month: number): string => `${month}\u0000${userId}`;

/**
 * Appends metered units to `usage_events` in batches (one row per user and month per flush) and answers how
 * much of a month a user has used (ClickHouse rows plus what this process has not flushed yet). This is the
 * auditable record of the monthly quota and what seeds the counters after a restart.
 */
export class UsageRecorder {
  private pending = new Map<string, { userId: string; month: number; units: number }>();
  private timer: NodeJS.Timeout | undefined;
  private seq = 0;
  private flushing: Promise<void> = Promise.resolve();
  readonly instance = randomUUID();

  constructor(
    private readonly store: Store,
    private readonly clock: () => number,
    private readonly log: FastifyBaseLogger,
    flushMs: number,
  ) {
    this.timer = setInterval(() => void this.flush(), flushMs);
    this.timer.unref();
  }

  record(userId: string, month: number, units: number): void {
    const k = keyOf(userId, month);
    const e = this.pending.get(k);
    if (e === undefined) this.pending.set(k, { userId, month, units });
    else e.units += units;
  }

  pendingUnits(userId: string, month: number): number {
    return this.pending.get(keyOf(userId, month))?.units ?? 0;
  }

  /** Units used in `month` so far: flushed rows plus this process's pending units. */
  async monthUsage(userId: string, month: number): Promise<number> {
    const rows = await this.store.query<{ units: string }>(
      'SELECT toString(sum(units)) AS units FROM usage_events WHERE month = {month:UInt32} AND user_id = {user_id:String}',
      { month, user_id: userId },
    );
    return Number(rows[0]?.units ?? 0) + this.pendingUnits(userId, month);
  }

  /** Writes the pending units. On failure they stay pending and go with the next flush. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.flushOnce());
    return this.flushing;
  }

  private async flushOnce(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    const ts = this.clock();
    // In pieces: each insert is a short step for the embedded engine, so the event loop never waits long.
    for (let i = 0; i < batch.length; i += FLUSH_ROWS) {
      const piece = batch.slice(i, i + FLUSH_ROWS);
      const rows = piece.map((e) => ({ user_id: e.userId, month: e.month, units: e.units, ts, instance: this.instance }));
      try {
        await this.store.insert('usage_events', rows, { dedupToken: `${this.instance}:${this.seq++}` });
      } catch (err) {
        // This piece and the ones not sent yet go back to pending.
        for (const e of batch.slice(i)) {
          const k = keyOf(e.userId, e.month);
          const cur = this.pending.get(k);
          if (cur === undefined) this.pending.set(k, e);
          else cur.units += e.units;
        }
        this.log.warn({ err: err instanceof Error ? err.message : String(err), rows: batch.length - i }, 'usage flush failed; will retry');
        return;
      }
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
