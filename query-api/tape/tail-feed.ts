/**
 * Keeps one SymbolTail (tail.ts) per symbol filled, so /v2/tape serves its newest pages from memory:
 *  1. subscribes this process's own consumer group to the option-trade topic (from the end of the log) and adds
 *     every trade it receives (before the store has it: the tail is as fresh as the bus);
 *  2. `settleMs` later (so the trades published before the subscription have reached the store through the raw
 *     writer), loads the newest `capacity` stored trades of the last `loadWindowMs` per symbol: this sets each
 *     tail's coverage (every trade with ts above its floor);
 *  3. every `reconcileMs`, reads the stored trades above the floor again and adds any the tail lacks (a trade
 *     published before the subscription and stored after the load, or one this consumer missed); each counts in
 *     gex_api_tape_tail_repaired_total, 0 in steady state. A failed load or reconciliation is retried at the next
 *     period; a symbol whose first load has not succeeded is served from the store.
 * A message that does not decode is skipped and counted (the raw writer dead-letters it; the store never has it).
 */
import { Counter, Gauge } from 'prom-client';
import type { Store } from '../../clickhouse/store.ts';
import type { Bus, BusConsumer, ConsumedBatch } from '../../ops/floor/bus/types.ts';
import { childLogger } from '../../ops/floor/log.ts';
import { METRIC } from '../../ops/floor/metrics/names.ts';
import { metricsRegistry, registeredMetric } from '../../ops/floor/metrics/registry.ts';
import { decodeMarketEvent } from '../../schemas/event-codec.ts';
import { TOPICS, type MarketSymbol, type OptionTrade } from '../../schemas/events.ts';
import type { TapeCursor, TapeOrder } from './cursor.ts';
import { utcDate, type TapeFilter, type TapePage } from './filter.ts';
import { readTapeEntries } from './read.ts';
import { SymbolTail, type TailEntry } from './tail.ts';
import { tapeRow } from './tape-row.ts';

const log = childLogger('tape-tail');
const registers = [metricsRegistry];
const metrics = {
  reads: registeredMetric(METRIC.apiTapeReads, () => new Counter({ name: METRIC.apiTapeReads, help: '/v2/tape pages by where they were read: tail (memory) or store', labelNames: ['source'] as const, registers })),
  rows: registeredMetric(METRIC.apiTapeTailRows, () => new Gauge({ name: METRIC.apiTapeTailRows, help: 'Option trades held in the tape tail, by symbol', labelNames: ['symbol'] as const, registers })),
  repaired: registeredMetric(METRIC.apiTapeTailRepaired, () => new Counter({ name: METRIC.apiTapeTailRepaired, help: 'Stored trades the tape tail lacked at a reconciliation (added then), by symbol', labelNames: ['symbol'] as const, registers })),
  skipped: registeredMetric(METRIC.apiTapeTailSkipped, () => new Counter({ name: METRIC.apiTapeTailSkipped, help: 'Option-trade bus messages the tape tail could not decode', registers })),
};

/** Far enough ahead for any venue clock: the loads' upper time bound (2100-01-01). */
const NO_END_MS = 4_102_444_800_000;

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
  private consumer: BusConsumer | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** The last load / reconciliation queued (they run one after another; syncAll never rejects). */
  private syncing: Promise<void> = Promise.resolve();
  private stopped = false;
  /** When the armed first load runs (wall ms); +∞ none armed. */
  private firstAt = Number.POSITIVE_INFINITY;
  /** The periodic loads have started. */
  private ticking = false;
  private readonly firstLoad: Promise<void>;
  private loaded!: () => void;

  constructor(private readonly opts: TapeTailOptions) {
    for (const s of opts.symbols) this.tails.set(s, new SymbolTail(opts.capacity));
    this.firstLoad = new Promise((resolve) => (this.loaded = resolve));
  }

  /** Subscribes (resolves once the consumer is running); the loads follow on their own. */
  async start(): Promise<void> {
    this.consumer = await this.opts.bus.subscribe({
      groupId: `tape-tail-${process.pid}-${Math.random().toString(36).slice(2, 10)}`,
      topics: [TOPICS.option_trade],
      fromBeginning: false,
      eachBatch: async (batch) => this.onBatch(batch),
      // The consumer starts at the log's end as of its assignment: what was published before reaches the store.
      onAssignment: () => this.scheduleFirstLoad(this.opts.settleMs ?? 2_000),
    });
    // A bus that announced no assignment yet: load anyway after a longer wait (the reconciliation repairs).
    this.scheduleFirstLoad(Math.max(15_000, this.opts.settleMs ?? 2_000));
  }

  /** (Re)arms the first load `afterMs` from now unless it started already or an earlier one is armed. */
  private scheduleFirstLoad(afterMs: number): void {
    const at = Date.now() + afterMs;
    if (this.ticking || this.stopped || at >= this.firstAt) return;
    this.firstAt = at;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.tick(), afterMs);
  }

  /** Resolves when every symbol's first load has succeeded. */
  ready(): Promise<void> {
    return this.firstLoad;
  }

  /** A page from memory, or null: read the store (not covered, or the symbol's tail not loaded yet). */
  page(f: TapeFilter, order: TapeOrder, limit: number, cursor: TapeCursor | null): TapePage | null {
    const p = this.tails.get(f.symbol)?.page({ ...f, fromMs: Math.trunc(f.fromMs), toMs: Math.trunc(f.toMs) }, order, limit, cursor) ?? null;
    metrics.reads.inc({ source: p === null ? 'store' : 'tail' });
    return p;
  }

  /**
   * One load / reconciliation of every symbol (what the timer runs), started after any in flight: it sees every
   * trade stored before the call. Resolves when it is done.
   */
  sync(): Promise<void> {
    const run = this.syncing.then(() => this.syncAll());
    this.syncing = run;
    return run;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    await this.consumer?.stop();
    await this.syncing;
  }

  private onBatch(batch: ConsumedBatch): void {
    for (const m of batch.messages) {
      let trade: OptionTrade;
      try {
        const e = decodeMarketEvent(TOPICS.option_trade, m.value);
        if (e.type !== 'option_trade') continue;
        trade = e.event;
      } catch (err) {
        metrics.skipped.inc();
        log.warn({ err, partition: m.partition, offset: m.offset }, 'option trade not decodable: skipped');
        continue;
      }
      const tail = this.tails.get(trade.symbol as MarketSymbol);
      if (tail === undefined) continue;
      tail.add(tailEntryOf(trade));
      metrics.rows.set({ symbol: trade.symbol }, tail.size);
    }
  }

  private tick(): void {
    this.ticking = true;
    void this.sync().finally(() => {
      if (!this.stopped) this.timer = setTimeout(() => this.tick(), this.opts.reconcileMs);
    });
  }

  private async syncAll(): Promise<void> {
    for (const [symbol, tail] of this.tails) {
      if (this.stopped) return;
      try {
        await this.syncSymbol(symbol, tail);
      } catch (err) {
        log.warn({ err, symbol }, 'tape tail load failed; retried at the next reconciliation');
      }
    }
    if ([...this.tails.values()].every((t) => t.ready)) this.loaded();
  }

  private async syncSymbol(symbol: MarketSymbol, tail: SymbolTail): Promise<void> {
    const now = (this.opts.clock ?? Date.now)();
    // First load: the window's start; then everything above the floor (which only rises).
    const fromMs = tail.ready ? tail.floor + 1 : now - (this.opts.loadWindowMs ?? 86_400_000);
    const filter: TapeFilter = { symbol, fromMs, toMs: NO_END_MS, venues: [], expiryDates: [], type: null, side: null, minPremiumUsd: 0, block: null };
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
    metrics.rows.set({ symbol }, tail.size);
  }
}
