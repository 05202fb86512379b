/**
 * Keeps one LiveFlowBook (live-flow.ts) per flow symbol (BTCUSDT, ETHUSDT) filled, so /v2/tape/flow-by-strike sums
 * live trades in memory, through a BusMirror (bus-mirror.ts: every trade from the bus as it is published):
 *  - the first load reads every stored trade of the live contracts (option_trades_live FINAL, expiry date today or
 *    later; at most `capacity` + 1: more marks the book full and the route reads the store);
 *  - every `reconcileMs` (10 min) the same read again: trades the book lacks are added (counted in
 *    gex_api_live_flow_repaired_total, 0 in steady state) and expired contracts dropped. A held copy is never
 *    replaced by the stored one (the bus copy is the later write or the same).
 * `cells` answers null (read the store) until a symbol's first load succeeded, and while its book is full.
 */
import { Counter, Gauge } from 'prom-client';
import { msParam } from '#clickhouse/epoch-ms.ts';
import type { ColumnsResult, NumberColumn, StringColumn } from '#clickhouse/row-binary.ts';
import type { Store } from '#clickhouse/store.ts';
import type { Bus } from '#bus/types.ts';
import { childLogger } from '#platform/log.ts';
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
  readonly clock?: () => number;
}

/** Every stored trade of the symbol's live contracts (at most `limit`), the columns the book holds. */
async function readLiveTrades(store: Store, symbol: MarketSymbol, nowMs: number, limit: number): Promise<ColumnsResult> {
  return store.queryColumns(
    `SELECT toUnixTimestamp64Milli(ts) AS ts_ms, toUnixTimestamp64Milli(expiry) AS expiry_ms, toString(venue) AS venue_s, id, strike,
       toString(option_type) AS type_s, toString(side) AS side_s, size, premium_usd
FROM option_trades_live FINAL
WHERE symbol = {symbol:String} AND expiry >= toDateTime64(toDate(${msParam('now')}, 'UTC'), 3, 'UTC')
LIMIT {limit:UInt32}
SETTINGS do_not_merge_across_partitions_select_final = 1`,
    { symbol, now: Math.trunc(nowMs), limit },
  );
}

function numbers(r: ColumnsResult, name: string): NumberColumn {
  const c = r.columns[name];
  if (c?.kind !== 'number') throw new Error(`live flow read: column ${name} missing or not numeric`);
  return c;
}

function strings(r: ColumnsResult, name: string): StringColumn {
  const c = r.columns[name];
  if (c?.kind !== 'string') throw new Error(`live flow read: column ${name} missing or not a string`);
  return c;
}

export class LiveFlow {
  private readonly books = new Map<MarketSymbol, LiveFlowBook>();
  private readonly loaded = new Set<MarketSymbol>();
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
    for (const [symbol, book] of this.books) {
      try {
        await this.syncSymbol(symbol, book);
      } catch (err) {
        log.warn({ err, symbol }, 'live flow load failed; retried at the next reconciliation');
      }
    }
  }

  private async syncSymbol(symbol: MarketSymbol, book: LiveFlowBook): Promise<void> {
    const now = (this.opts.clock ?? Date.now)();
    book.dropExpired(Math.floor(now / DAY_MS) * DAY_MS);
    const r = await readLiveTrades(this.opts.store, symbol, now, this.opts.capacity + 1);
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
    const first = !this.loaded.has(symbol);
    this.loaded.add(symbol);
    if (!first && missing > 0) {
      metrics.repaired.inc({ symbol }, missing);
      log.info({ symbol, missing }, 'live flow book lacked stored trades: added');
    }
    if (book.full)
      log.warn({ symbol, capacity: this.opts.capacity }, 'more live trades than LIVE_FLOW_TRADES: flow by strike is read from the store');
  }
}
