/**
 * Keeps one LiveFlowBook (live-flow.ts) per flow symbol (BTCUSDT, ETHUSDT) filled, so /v2/tape/flow-by-strike sums
 * live trades in memory, through a BusMirror (bus-mirror.ts: every trade from the bus as it is published):
 *  - the first load reads every stored trade of the live contracts (option_trades_unexpired FINAL, expiry date today or
 *    later; more than `capacity` marks the book full and the route reads the store), in pages, in slices of the
 *    event loop;
 *  - every `reconcileMs` (10 min) expired contracts are dropped and the stored trades of the last 15 minutes read
 *    again (every 6th time, or after contracts expired: all of them): trades the book lacks are added (counted in
 *    gex_api_live_flow_repaired_total, 0 in steady state). A held copy is never replaced by the stored one (the bus
 *    copy is the later write or the same).
 * `cells` answers null (read the store) until a symbol's first load succeeded, and while its book is full.
 */
import { Counter, Gauge } from 'prom-client';
import { msParam } from '#clickhouse/epoch-ms.ts';
import { columnOf, type ColumnsResult, type NumberColumn, type StringColumn } from '#clickhouse/row-binary.ts';
import type { Store } from '#clickhouse/store.ts';
import type { Bus } from '#bus/types.ts';
import { childLogger } from '#platform/log.ts';
import { TimeSlice } from '#platform/time-slice.ts';
import { METRIC } from '#platform/metrics/names.ts';
import { metricsRegistry, registeredMetric } from '#platform/metrics/registry.ts';
import type { FlowCell } from '#processors/analytics/flow-by-strike.ts';
import type { MarketSymbol, OptionTrade } from '#schemas/events.ts';
import { BusMirror } from './bus-mirror.ts';
import { LiveFlowBook, type FlowQuery } from './live-flow.ts';

const log = childLogger('live-flow');
const registers = [metricsRegistry];
/** The started feeds: `gex_api_live_flow_rows` reads their books' counts at each scrape. */
const running = new Set<LiveFlow>();
const metrics = {
  reads: registeredMetric(
    METRIC.apiLiveFlowReads,
    () =>
      new Counter({
        name: METRIC.apiLiveFlowReads,
        help: '/v2/tape/flow-by-strike computations by where the trades were read: book (memory) or store',
        labelNames: ['source'] as const,
        registers,
      }),
  ),
  trades: registeredMetric(
    METRIC.apiLiveFlowTrades,
    () =>
      new Gauge({
        name: METRIC.apiLiveFlowTrades,
        help: 'Live-contract option trades held in the live flow book, by symbol',
        labelNames: ['symbol'] as const,
        registers,
        collect() {
          for (const feed of running) for (const [symbol, n] of feed.heldTrades()) this.set({ symbol }, n);
        },
      }),
  ),
  repaired: registeredMetric(
    METRIC.apiLiveFlowRepaired,
    () =>
      new Counter({
        name: METRIC.apiLiveFlowRepaired,
        help: 'Stored live trades the live flow book lacked at a reconciliation (added then), by symbol',
        labelNames: ['symbol'] as const,
        registers,
      }),
  ),
};

const DAY_MS = 86_400_000;

export interface LiveFlowOptions {
  readonly bus: Bus;
  readonly store: Store;
  readonly symbols: readonly MarketSymbol[];
  /** Live trades held per symbol. */
  readonly capacity: number;
  readonly reconcileMs: number;
  readonly settleMs?: number;
  /** Rows per page of a full read. Default PAGE_ROWS (100,000). */
  readonly pageRows?: number;
  readonly clock?: () => number;
}

/**
 * A reconciliation reads the stored live trades of the last RECENT_MS (what a trade published before the
 * subscription and stored after the load, or one this consumer missed, looks like). The first load, every
 * FULL_EVERY-th reconciliation (hourly at the default period) and the one after a day's contracts expired read them
 * all, in pages of about PAGE_ROWS (by a hash of the id), adding them in 5 ms slices of the event loop: a million
 * live trades read and added at once held the loop for ~6 s per symbol. While a book is full the route reads the
 * store, so the book's reconciliation reads nothing until contracts expire.
 */
const RECENT_MS = 15 * 60_000;
const FULL_EVERY = 6;
const PAGE_ROWS = 100_000;

const LIVE = `symbol = {symbol:String} AND expiry >= toDateTime64(toDate(${msParam('now')}, 'UTC'), 3, 'UTC')`;

interface LiveRead {
  /** Only trades at or after this instant (the recent read); null: all. */
  readonly fromMs: number | null;
  /** Page `index` of `count` (by cityHash64(id)). */
  readonly page: { readonly index: number; readonly count: number };
}

/** The stored live trades of the symbol selected by `read`, the columns the book holds. */
async function readLiveTrades(store: Store, symbol: MarketSymbol, nowMs: number, read: LiveRead): Promise<ColumnsResult> {
  const recent = read.fromMs === null ? '' : ` AND ts >= ${msParam('from')}`;
  const paged = read.page.count > 1 ? ' AND cityHash64(id) % {pages:UInt32} = {page:UInt32}' : '';
  return store.queryColumns(
    `SELECT toUnixTimestamp64Milli(ts) AS ts_ms, toUnixTimestamp64Milli(expiry) AS expiry_ms, toString(venue) AS venue_s, id, strike,
       toString(option_type) AS type_s, toString(side) AS side_s, size, premium_usd
FROM option_trades_unexpired FINAL
WHERE ${LIVE}${recent}${paged}
SETTINGS do_not_merge_across_partitions_select_final = 1`,
    {
      symbol,
      now: Math.trunc(nowMs),
      ...(read.fromMs === null ? {} : { from: Math.trunc(read.fromMs) }),
      ...(read.page.count > 1 ? { pages: read.page.count, page: read.page.index } : {}),
    },
  );
}

/** Pages of a full read: the stored rows of the live contracts (copies not yet merged included) by PAGE_ROWS. */
async function fullReadPages(store: Store, symbol: MarketSymbol, nowMs: number, pageRows: number): Promise<number> {
  const rows = await store.query<{ n: string }>(`SELECT count() AS n FROM option_trades_unexpired WHERE ${LIVE}`, {
    symbol,
    now: Math.trunc(nowMs),
  });
  return Math.max(1, Math.ceil(Number(rows[0]?.n ?? 0) / pageRows));
}

const numbers = (r: ColumnsResult, name: string): NumberColumn => columnOf(r, name, 'number', 'live flow read');
const strings = (r: ColumnsResult, name: string): StringColumn => columnOf(r, name, 'string', 'live flow read');

export class LiveFlow {
  private readonly books = new Map<MarketSymbol, LiveFlowBook>();
  private readonly loaded = new Set<MarketSymbol>();
  /** Reconciliations run so far (the first and every FULL_EVERY-th read every stored live trade). */
  private rounds = 0;
  private readonly mirror: BusMirror;

  constructor(private readonly opts: LiveFlowOptions) {
    for (const s of opts.symbols) this.books.set(s, new LiveFlowBook(opts.capacity));
    this.mirror = new BusMirror({
      name: 'live-flow',
      bus: opts.bus,
      onTrade: (t) => this.onTrade(t),
      sync: () => this.syncAll(),
      periodMs: opts.reconcileMs,
      ...(opts.settleMs !== undefined ? { settleMs: opts.settleMs } : {}),
    });
  }

  start(): Promise<void> {
    running.add(this);
    return this.mirror.start();
  }

  /** Trades held per symbol now. */
  heldTrades(): [MarketSymbol, number][] {
    return [...this.books].map(([symbol, book]) => [symbol, book.count]);
  }

  /** One load / reconciliation of every symbol, after any in flight. */
  sync(): Promise<void> {
    return this.mirror.sync();
  }

  stop(): Promise<void> {
    running.delete(this);
    return this.mirror.stop();
  }

  /** The flow cells of readFlowCells from memory, or null: read the store (not loaded yet, or the book is full). */
  cells(symbol: MarketSymbol, q: FlowQuery): FlowCell[] | null {
    const book = this.books.get(symbol);
    const ok = book !== undefined && this.loaded.has(symbol) && !book.full;
    metrics.reads.inc({ source: ok ? 'book' : 'store' });
    return ok ? book.cells(q) : null;
  }

  private onTrade(t: OptionTrade): void {
    const book = this.books.get(t.symbol as MarketSymbol);
    if (book === undefined) return;
    const now = (this.opts.clock ?? Date.now)();
    // a trade of an expired contract is not live (the store's reads exclude it too)
    if (t.expiry < Math.floor(now / DAY_MS) * DAY_MS) return;
    book.add({
      ts: t.ts,
      expiry: t.expiry,
      venue: t.venue,
      id: t.id,
      strike: t.strike,
      type: t.optionType,
      side: t.side,
      size: t.size,
      premium: t.premiumUsd,
    });
  }

  private async syncAll(): Promise<void> {
    const full = this.rounds++ % FULL_EVERY === 0;
    for (const [symbol, book] of this.books) {
      try {
        await this.syncSymbol(symbol, book, full);
      } catch (err) {
        log.warn({ err, symbol }, 'live flow load failed; retried at the next reconciliation');
      }
    }
  }

  private async syncSymbol(symbol: MarketSymbol, book: LiveFlowBook, fullRound: boolean): Promise<void> {
    const now = (this.opts.clock ?? Date.now)();
    const dropped = book.dropExpired(Math.floor(now / DAY_MS) * DAY_MS);
    const first = !this.loaded.has(symbol);
    const full = first || dropped > 0 || fullRound;
    // Full and nothing expired: the route reads the store; what the book lacks could not be added anyway.
    if (book.full && !first && dropped === 0) return;
    const pages = full ? await fullReadPages(this.opts.store, symbol, now, this.opts.pageRows ?? PAGE_ROWS) : 1;
    const slice = new TimeSlice();
    let missing = 0;
    for (let index = 0; index < pages; index++) {
      const r = await readLiveTrades(this.opts.store, symbol, now, {
        fromMs: full ? null : now - RECENT_MS,
        page: { index, count: pages },
      });
      missing += await addMissing(book, r, slice);
    }
    this.loaded.add(symbol);
    if (!first && missing > 0) {
      metrics.repaired.inc({ symbol }, missing);
      log.info({ symbol, missing }, 'live flow book lacked stored trades: added');
    }
    if (book.full)
      log.warn({ symbol, capacity: this.opts.capacity }, 'more live trades than LIVE_FLOW_TRADES: flow by strike is read from the store');
  }
}

/** Adds the read trades the book lacks, yielding the event loop between 5 ms slices; how many were added. */
async function addMissing(book: LiveFlowBook, r: ColumnsResult, slice: TimeSlice): Promise<number> {
  const [ts, expiry, strike, size, premium] = ['ts_ms', 'expiry_ms', 'strike', 'size', 'premium_usd'].map((n) => numbers(r, n)) as [
    NumberColumn,
    NumberColumn,
    NumberColumn,
    NumberColumn,
    NumberColumn,
  ];
  const [venue, id, type, side] = ['venue_s', 'id', 'type_s', 'side_s'].map((n) => strings(r, n)) as [
    StringColumn,
    StringColumn,
    StringColumn,
    StringColumn,
  ];
  let missing = 0;
  for (let i = 0; i < r.rows; i++) {
    if ((i & 1023) === 0) await slice.yieldIfDue();
    const e = expiry.values[i] as number;
    const v = venue.values[i] ?? '';
    const k = id.values[i] ?? '';
    if (book.has(e, v, k)) continue;
    const added = book.add({
      ts: ts.values[i] as number,
      expiry: e,
      venue: v,
      id: k,
      strike: strike.values[i] as number,
      type: type.values[i] ?? '',
      side: side.values[i] ?? '',
      size: size.values[i] as number,
      premium: premium.values[i] as number,
    });
    if (added) missing++;
  }
  return missing;
}
