/**
 * Keeps one SymbolTail (tail.ts) per symbol filled, so /v2/tape serves its newest pages from memory, through a
 * BusMirror (bus-mirror.ts: every trade from the bus as it is published; loads from the store after the assignment):
 *  - the first load reads the newest `capacity` stored trades of the last `loadWindowMs` per symbol: this sets each
 *    tail's coverage (every trade with ts above its floor);
 *  - every `reconcileMs` the stored trades of the last 15 minutes (every 20th time: all above the floor) are read
 *    again and any the tail lacks is added (a trade published before the subscription and stored after the load,
 *    or one this consumer missed), counted in
 *    gex_api_tape_tail_repaired_total, 0 in steady state. A symbol whose first load has not succeeded is served
 *    from the store.
 */
import { Counter, Gauge } from 'prom-client';
import type { Store } from '#clickhouse/store.ts';
import type { Bus } from '#bus/types.ts';
import { childLogger } from '#platform/log.ts';
import { METRIC } from '#platform/metrics/names.ts';
import { metricsRegistry, registeredMetric } from '#platform/metrics/registry.ts';
import type { MarketSymbol, OptionTrade } from '#schemas/events.ts';
import { BusMirror } from './bus-mirror.ts';
import type { TapeCursor, TapeOrder } from './cursor.ts';
import { allTrades, utcDate, type TapeFilter, type TapePage } from './filter.ts';
import { readTapeEntries } from './read.ts';
import { SymbolTail, type TailEntry } from './tail.ts';
import { tapeRow } from './tape-row.ts';

const log = childLogger('tape-tail');
const registers = [metricsRegistry];
/** The started tails: `gex_api_tape_tail_rows` reads their sizes at each scrape. */
const running = new Set<TapeTail>();
const metrics = {
  reads: registeredMetric(
    METRIC.apiTapeReads,
    () =>
      new Counter({
        name: METRIC.apiTapeReads,
        help: '/v2/tape pages by where they were read: tail (memory) or store',
        labelNames: ['source'] as const,
        registers,
      }),
  ),
  rows: registeredMetric(
    METRIC.apiTapeTailRows,
    () =>
      new Gauge({
        name: METRIC.apiTapeTailRows,
        help: 'Option trades held in the tape tail, by symbol',
        labelNames: ['symbol'] as const,
        registers,
        collect() {
          for (const feed of running) for (const [symbol, n] of feed.heldRows()) this.set({ symbol }, n);
        },
      }),
  ),
  repaired: registeredMetric(
    METRIC.apiTapeTailRepaired,
    () =>
      new Counter({
        name: METRIC.apiTapeTailRepaired,
        help: 'Stored trades the tape tail lacked at a reconciliation (added then), by symbol',
        labelNames: ['symbol'] as const,
        registers,
      }),
  ),
};

/** Far enough ahead for any venue clock: the loads' upper time bound (2100-01-01). */
const NO_END_MS = 4_102_444_800_000;
/**
 * A reconciliation reads the stored trades of the last 15 minutes (what a trade published before the subscription
 * and stored after the first load looks like: the raw writer's lag is seconds); every 20th (10 min at the default
 * period) reads the whole coverage (a gap fill's old trades in that case). Constant cost instead of 20,000 rows.
 */
const RECENT_MS = 15 * 60_000;
const FULL_EVERY = 20;

export interface TapeTailOptions {
  readonly bus: Bus;
  readonly store: Store;
  readonly symbols: readonly MarketSymbol[];
  /** Trades held per symbol (at most 10 % more between trims). */
  readonly capacity: number;
  /** Period of the reconciliation with the store, ms. */
  readonly reconcileMs: number;
  /** How far back the first load reaches, ms. Default 24 h (the tape's default window). */
  readonly loadWindowMs?: number;
  /** Wait between the subscription and the first load, ms. Default 2,000. */
  readonly settleMs?: number;
  readonly clock?: () => number;
}

/** The bus event → a tail entry (the row the store read builds from the stored copy). */
export function tailEntryOf(t: OptionTrade): TailEntry {
  return { ts: t.ts, venue: t.venue, id: t.id, expiryDate: utcDate(t.expiry), row: tapeRow(t) };
}

export class TapeTail {
  private readonly tails = new Map<MarketSymbol, SymbolTail>();
  private readonly mirror: BusMirror;
  /** Syncs run so far (the first and every FULL_EVERY-th read the whole coverage). */
  private rounds = 0;
  private readonly firstLoad: Promise<void>;
  private loaded!: () => void;

  constructor(private readonly opts: TapeTailOptions) {
    for (const s of opts.symbols) this.tails.set(s, new SymbolTail(opts.capacity));
    this.firstLoad = new Promise((resolve) => (this.loaded = resolve));
    this.mirror = new BusMirror({
      name: 'tape-tail',
      bus: opts.bus,
      onTrade: (t) => this.onTrade(t),
      sync: () => this.syncAll(),
      periodMs: opts.reconcileMs,
      ...(opts.settleMs !== undefined ? { settleMs: opts.settleMs } : {}),
    });
  }

  /** Subscribes (resolves once the consumer is running); the loads follow on their own. */
  start(): Promise<void> {
    running.add(this);
    return this.mirror.start();
  }

  /** Trades held per symbol now. */
  heldRows(): [MarketSymbol, number][] {
    return [...this.tails].map(([symbol, tail]) => [symbol, tail.size]);
  }

  /** Resolves when every symbol's first load has succeeded. */
  ready(): Promise<void> {
    return this.firstLoad;
  }

  /** A page from memory, or null: read the store (not covered, or the symbol's tail not loaded yet). */
  page(f: TapeFilter, order: TapeOrder, limit: number, cursor: TapeCursor | null): TapePage | null {
    const p =
      this.tails.get(f.symbol)?.page({ ...f, fromMs: Math.trunc(f.fromMs), toMs: Math.trunc(f.toMs) }, order, limit, cursor) ?? null;
    metrics.reads.inc({ source: p === null ? 'store' : 'tail' });
    return p;
  }

  /** One load / reconciliation of every symbol, after any in flight (it sees every trade stored before the call). */
  sync(): Promise<void> {
    return this.mirror.sync();
  }

  stop(): Promise<void> {
    running.delete(this);
    return this.mirror.stop();
  }

  private onTrade(trade: OptionTrade): void {
    const tail = this.tails.get(trade.symbol as MarketSymbol);
    if (tail === undefined) return;
    tail.add(tailEntryOf(trade));
  }

  private async syncAll(): Promise<void> {
    const full = this.rounds++ % FULL_EVERY === 0;
    for (const [symbol, tail] of this.tails) {
      try {
        await this.syncSymbol(symbol, tail, full);
      } catch (err) {
        log.warn({ err, symbol }, 'tape tail load failed; retried at the next reconciliation');
      }
    }
    if ([...this.tails.values()].every((t) => t.ready)) this.loaded();
  }

  private async syncSymbol(symbol: MarketSymbol, tail: SymbolTail, full: boolean): Promise<void> {
    const now = (this.opts.clock ?? Date.now)();
    // First load: the window's start; then the trades of the last RECENT_MS (a full round: everything above the
    // floor, which only rises).
    const fromMs = !tail.ready
      ? now - (this.opts.loadWindowMs ?? 86_400_000)
      : full
        ? tail.floor + 1
        : Math.max(tail.floor + 1, now - RECENT_MS);
    const filter = allTrades(symbol, fromMs, NO_END_MS);
    const { entries, more } = await readTapeEntries(this.opts.store, filter, 'desc', this.opts.capacity, null);
    // With more stored than the capacity, every trade newer than the oldest one read is in `entries`.
    const oldest = entries[entries.length - 1];
    const floor = more && oldest !== undefined ? oldest.ts : fromMs - 1;
    const wasReady = tail.ready;
    const missing = tail.load(entries, floor);
    if (wasReady && missing > 0) {
      metrics.repaired.inc({ symbol }, missing);
      log.info({ symbol, missing }, 'tape tail lacked stored trades: added');
    }
  }
}
