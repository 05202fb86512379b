/**
 * In-memory latest snapshot per symbol, for the API's current (non as_of) requests. Refreshed when a new
 * snapshot is announced on analytics.snapshots.v1 (rows then loaded from ClickHouse by (symbol, computed_at))
 * and by polling ClickHouse every `pollMs` (covers a missed or late bus message, and processes that do not
 * consume the bus). Never goes backwards: an older snapshot never replaces a newer one.
 */
import type { Store } from '#clickhouse/store.ts';
import type { Bus, BusConsumer } from '#bus/types.ts';
import { childLogger } from '#platform/log.ts';
import { avroCodec } from '#schemas/avro/codec.ts';
import { SYMBOLS, TOPICS } from '#schemas/events.ts';
import type { AnalyticsSnapshot, MarketSymbol } from '#schemas/events.ts';
import type { LevelsInclude } from '#processors/analytics/levels.ts';
import type { DealerModel } from '#processors/analytics/types.ts';
import { latestSnapshot, levelsOfSnapshot } from './as-of.ts';
import type { StoredSnapshot } from './as-of.ts';
import { metaOf } from '#processors/snapshots/levels-step.ts';
import { rowsAt } from '#processors/snapshots/processor-reads.ts';
import { SNAPSHOT_KIND } from '#processors/snapshots/write-step.ts';

const log = childLogger('snapshot-cache');

export interface SnapshotCacheOptions {
  readonly symbols?: readonly MarketSymbol[];
  /** Poll interval; 0 disables polling. Default 5 s. */
  readonly pollMs?: number;
  /** Subscribe to analytics.snapshots.v1 on this bus (a private consumer group, latest only). */
  readonly bus?: Bus;
  /** Snapshot cadence; health() is ok while the newest snapshot is younger than 2 intervals. Default 30 s. */
  readonly intervalMs?: number;
}

/** Health of the cache for /v2/health: ok when some symbol has a snapshot younger than ~2 intervals. */
export interface SnapshotCacheHealth {
  readonly ok: boolean;
  /** Age of the newest cached snapshot (any symbol), seconds; null when nothing is cached. */
  readonly age_seconds: number | null;
}

export class SnapshotCache {
  private readonly latest = new Map<MarketSymbol, StoredSnapshot>();
  private readonly symbols: readonly MarketSymbol[];
  private timer: NodeJS.Timeout | null = null;
  private consumer: BusConsumer | null = null;
  private refreshing: Promise<void> | null = null;

  constructor(
    private readonly store: Store,
    private readonly options: SnapshotCacheOptions = {},
  ) {
    this.symbols = options.symbols ?? SYMBOLS;
  }

  get(symbol: MarketSymbol): StoredSnapshot | null {
    return this.latest.get(symbol) ?? null;
  }

  /** computed_at of the newest cached snapshot over all symbols (ms), or null. */
  newestAt(): number | null {
    let newest: number | null = null;
    for (const s of this.latest.values()) if (newest === null || s.meta.computed_at > newest) newest = s.meta.computed_at;
    return newest;
  }

  health(now: number = Date.now()): SnapshotCacheHealth {
    const newest = this.newestAt();
    if (newest === null) return { ok: false, age_seconds: null };
    const age = Math.max(0, now - newest);
    return { ok: age <= 2 * (this.options.intervalMs ?? 30_000), age_seconds: Math.round(age / 100) / 10 };
  }

  /** Levels of the cached snapshot for a venue filter and model (null before the first snapshot). */
  levels(
    symbol: MarketSymbol,
    model: DealerModel,
    venues?: readonly string[],
    include?: LevelsInclude,
  ): (ReturnType<typeof levelsOfSnapshot> & { snapshot: StoredSnapshot }) | null {
    const s = this.get(symbol);
    return s === null ? null : { ...levelsOfSnapshot(s, model, venues, include), snapshot: s };
  }

  /** Offer a snapshot; kept only when newer than the cached one. */
  offer(s: StoredSnapshot): boolean {
    const cur = this.latest.get(s.meta.symbol);
    if (cur !== undefined && cur.meta.computed_at >= s.meta.computed_at) return false;
    this.latest.set(s.meta.symbol, s);
    return true;
  }

  /** Load the newest snapshot of every symbol from ClickHouse (coalesced when already running). */
  refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        for (const symbol of this.symbols) {
          const s = await latestSnapshot(this.store, symbol);
          if (s !== null) this.offer(s);
        }
      } finally {
        this.refreshing = null;
      }
    })();
    return this.refreshing;
  }

  /** Load one announced snapshot. */
  async load(symbol: MarketSymbol, computedAt: number): Promise<void> {
    const cur = this.latest.get(symbol);
    if (cur !== undefined && cur.meta.computed_at >= computedAt) return;
    const rows = await rowsAt(this.store, symbol, computedAt);
    if (rows.length > 0) this.offer({ meta: metaOf(symbol, computedAt, rows), rows });
  }

  async start(): Promise<void> {
    await this.refresh();
    const pollMs = this.options.pollMs ?? 5_000;
    if (pollMs > 0) {
      this.timer = setInterval(
        () => void this.refresh().catch((err: unknown) => log.warn({ err }, 'snapshot cache refresh failed')),
        pollMs,
      );
      this.timer.unref();
    }
    const bus = this.options.bus;
    if (bus !== undefined) {
      this.consumer = await bus.subscribe({
        groupId: `snapshot-cache-${process.pid}-${Math.random().toString(36).slice(2, 10)}`,
        topics: [TOPICS.snapshot],
        fromBeginning: false,
        eachBatch: async (batch) => {
          for (const m of batch.messages) {
            try {
              const s = avroCodec().decodeAs<AnalyticsSnapshot>('snapshot', m.value);
              if (s.kind === SNAPSHOT_KIND && this.symbols.includes(s.symbol)) await this.load(s.symbol, s.computedAt);
            } catch (err) {
              log.warn({ err, offset: m.offset }, 'snapshot announcement skipped');
            }
          }
        },
      });
    }
  }

  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.consumer?.stop();
    this.consumer = null;
  }
}
