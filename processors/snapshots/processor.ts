/**
 * The snapshot processor role.
 *
 * State: latest ticker per (symbol, venue, instrument), index prices, perp marks and delistings, consumed from
 * md.option_tickers / md.instruments / md.index / md.perp_stats (keyed venue:symbol, so one symbol's events
 * keep their order per venue). The flow model's dealer inventory is NOT kept in memory: it is rebuilt from the
 * stored option trades (inventory.ts) as of each tick, after waiting until the raw writer stored every trade
 * published before the tick.
 *
 * Restart safety:
 * - a consumed batch is applied to memory at once, but its offsets are committed only after the raw writer
 *   (config.durableGroupId) committed past it, i.e. after the events are in ClickHouse; on start the state is
 *   rebuilt from the raw tables (loadStateAsOf, freshness windows) and consumption resumes at the committed
 *   offsets, so nothing before them is lost and nothing after them is skipped;
 * - snapshot rows are idempotent per (symbol, venue, computed_at): dedup token per (table, symbol, tick) plus
 *   ReplacingMergeTree;
 * - missed ticks: on start, every aligned tick after the symbol's last completed tick (gamma_flow) up to now is
 *   computed from the raw tables AS OF THE TICK (same numbers a live cycle would have had from stored data),
 *   if it is within config.catchUpWindowMs; older ones are skipped, logged and counted
 *   (gex_snapshot_ticks_skipped_total{reason="out_of_window"}). A tick whose rows were stored before the
 *   crash is completed from those rows. Ticks that start more than one interval late are computed the same way.
 */
import type { Store } from '../../clickhouse/store.ts';
import type { Bus, BusConsumer, ConsumedBatch } from '../../ops/floor/bus/types.ts';
import { childLogger } from '../../ops/floor/log.ts';
import { TOPICS } from '../../schemas/events.ts';
import type { MarketSymbol } from '../../schemas/events.ts';
import { decodeMarketEvent } from '../../schemas/event-codec.ts';
import { FLOW_SYMBOLS } from '../analytics/dealer.ts';
import { alignedAtOrBefore, runAligned, systemClock, ticksBetween } from './clock.ts';
import type { Clock } from './clock.ts';
import { snapshotConfig } from './config.ts';
import type { SnapshotConfig } from './config.ts';
import { runCycle } from './cycle.ts';
import type { CycleContext, CycleResult } from './cycle.ts';
import { AbortedError, waitCommittedPast, waitDrained } from './durability.ts';
import { recordSnapshotAt, snapshotMetrics } from './metrics.ts';
import { loadStateAsOf } from './rebuild.ts';
import { lastCompletedTick } from './snapshot-reads.ts';
import { MarketState } from './state.ts';

export const STATE_TOPICS: readonly string[] = [TOPICS.instrument, TOPICS.option_ticker, TOPICS.index, TOPICS.perp_stats];
const RAW_MARKET_TOPICS: readonly string[] = [...STATE_TOPICS, TOPICS.option_trade];

export interface SnapshotProcessorOptions {
  readonly config?: Partial<SnapshotConfig>;
  readonly clock?: Clock;
  /** Called after every cycle (tests, CLI progress). */
  readonly onCycle?: (r: CycleResult) => void;
}

export interface SnapshotProcessor {
  /** Resolves when the start-up catch-up is done and the live loop runs. */
  readonly ready: Promise<void>;
  stop(): Promise<void>;
}

const log = childLogger('snapshots');

export async function startSnapshotProcessor(bus: Bus, store: Store, opts: SnapshotProcessorOptions = {}): Promise<SnapshotProcessor> {
  const cfg = snapshotConfig(opts.config);
  const clock = opts.clock ?? systemClock;
  const abort = new AbortController();
  // The commit gate has its own signal: on stop the in-flight batch may still become durable and commit.
  const gateAbort = new AbortController();
  const state = new MarketState();
  const chainOpts = { tickerFreshnessMs: cfg.tickerFreshnessMs, priceFreshnessMs: cfg.priceFreshnessMs };
  const ctx: CycleContext = { store, bus, state, chain: chainOpts };

  // 1. Rebuild the state from ClickHouse (everything before the committed offsets is stored there).
  const startedAt = clock.now();
  for (const symbol of cfg.symbols) await loadStateAsOf(store, symbol, startedAt, chainOpts, state);
  log.info({ symbols: cfg.symbols, at: new Date(startedAt).toISOString() }, 'snapshot state rebuilt from the raw tables');

  // 2. Resume consuming at the committed offsets; commit only once the raw writer stored the batch.
  let undecodable = 0;
  const consumer: BusConsumer = await bus.subscribe({
    groupId: cfg.groupId,
    topics: STATE_TOPICS,
    fromBeginning: true,
    maxBatchSize: 5_000,
    eachBatch: async (batch: ConsumedBatch) => {
      for (const m of batch.messages) {
        try {
          state.apply(decodeMarketEvent(m.topic, m.value));
        } catch {
          undecodable++; // the raw writer keeps the bytes in dead_letters
          if (undecodable % 1000 === 1) log.warn({ topic: m.topic, offset: m.offset, undecodable }, 'undecodable message skipped');
        }
      }
      const last = batch.messages[batch.messages.length - 1];
      if (cfg.durableGroupId !== null && last !== undefined) {
        await waitCommittedPast(bus, cfg.durableGroupId, batch.topic, batch.partition, last.offset, gateAbort.signal);
      }
    },
  });

  const drain = async (topics: readonly string[]): Promise<void> => {
    if (cfg.durableGroupId === null) return;
    const ok = await waitDrained(bus, cfg.durableGroupId, topics, cfg.drainTimeoutMs, abort.signal);
    if (!ok && !abort.signal.aborted) log.warn({ group: cfg.durableGroupId, topics }, 'raw writer not drained in time; computing from what is stored');
  };

  const cycle = async (symbol: MarketSymbol, tick: number, source: 'live' | 'store'): Promise<void> => {
    try {
      const r = await runCycle(ctx, symbol, tick, source);
      if (r.kind === 'stored') recordSnapshotAt(symbol, tick);
      else log.debug({ symbol, tick: new Date(tick).toISOString(), reason: r.reason }, 'tick skipped: no data');
      opts.onCycle?.(r);
    } catch (err) {
      if (err instanceof AbortedError) return;
      log.error({ err, symbol, tick: new Date(tick).toISOString() }, 'snapshot cycle failed');
    }
  };

  // 3. Catch up the ticks missed while down (within the window), from the store as of each tick.
  const interval = cfg.snapshotIntervalMs;
  const boundary = alignedAtOrBefore(startedAt, interval);
  const ready = (async () => {
    const plan: { symbol: MarketSymbol; tick: number }[] = [];
    for (const symbol of cfg.symbols) {
      const last = await lastCompletedTick(store, symbol);
      if (last === null) continue;
      const missed = ticksBetween(last, boundary + 1, interval);
      const stale = missed.filter((t) => t < startedAt - cfg.catchUpWindowMs);
      if (stale.length > 0) {
        snapshotMetrics.skipped.inc({ symbol, reason: 'out_of_window' }, stale.length);
        log.warn({ symbol, skipped: stale.length, from: new Date(stale[0] ?? 0).toISOString() }, 'missed ticks beyond the catch-up window skipped');
      }
      for (const tick of missed) if (tick >= startedAt - cfg.catchUpWindowMs) plan.push({ symbol, tick });
    }
    if (plan.length > 0) {
      await drain(RAW_MARKET_TOPICS);
      plan.sort((a, b) => a.tick - b.tick);
      log.info({ ticks: plan.length }, 'catching up missed ticks from the store');
      for (const p of plan) {
        if (abort.signal.aborted) return;
        await cycle(p.symbol, p.tick, 'store');
      }
    }
  })();

  // 4. The live loop, aligned to the wall clock.
  const loop = ready.then(() =>
    runAligned({
      clock,
      intervalMs: interval,
      signal: abort.signal,
      firstTick: boundary + interval,
      catchUpWindowMs: cfg.catchUpWindowMs,
      onSkip: (ticks) => {
        for (const symbol of cfg.symbols) snapshotMetrics.skipped.inc({ symbol, reason: 'out_of_window' }, ticks.length);
        log.warn({ skipped: ticks.length }, 'ticks beyond the catch-up window skipped');
      },
      onTick: async (tick, lateMs) => {
        const late = lateMs > interval;
        // Trades published before the tick must be stored: the flow inventory is read from ClickHouse.
        await drain(late ? RAW_MARKET_TOPICS : cfg.symbols.some((s) => FLOW_SYMBOLS.includes(s)) ? [TOPICS.option_trade] : []);
        for (const symbol of cfg.symbols) {
          if (abort.signal.aborted) return;
          await cycle(symbol, tick, late ? 'store' : 'live');
        }
        state.prune(tick, Math.max(cfg.tickerFreshnessMs, cfg.priceFreshnessMs) + interval);
      },
    }),
  );

  return {
    ready,
    async stop(): Promise<void> {
      abort.abort();
      await loop.catch((err: unknown) => log.error({ err }, 'snapshot loop failed'));
      const giveUp = setTimeout(() => gateAbort.abort(), 2_000);
      await consumer.stop();
      clearTimeout(giveUp);
    },
  };
}
