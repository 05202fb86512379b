/**
 * The snapshot processor role.
 *
 * State: latest ticker per (symbol, venue, instrument), index prices, perp marks and delistings, consumed from
 * md.option_tickers / md.instruments / md.index / md.perp_stats (keyed venue:symbol, so one symbol's events
 * keep their order per venue). The flow model's dealer inventory comes from the dealer-flow processor
 * (processors/dealer-flow): at each tick, after waiting until the raw writer stored every trade published
 * before the tick, its book moves forward by the trades since its last checkpoint and is checkpointed; the
 * snapshot reads the inventory as of the tick (nearest checkpoint + the stored trades after it).
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
import type { Store } from '#clickhouse/store.ts';
import type { Bus } from '#bus/types.ts';
import { childLogger } from '#platform/log.ts';
import { TOPICS } from '#schemas/events.ts';
import { FLOW_SYMBOLS } from '../analytics/dealer.ts';
import { DealerFlow } from '../dealer-flow/dealer-flow.ts';
import { alignedAtOrBefore, runAligned, systemClock } from './clock.ts';
import type { Clock } from './clock.ts';
import { snapshotConfig } from './config.ts';
import type { SnapshotConfig } from './config.ts';
import type { CycleContext, CycleResult } from './cycle.ts';
import { cycleRunner, type CycleInput } from './cycle-step.ts';
import { planCatchUp } from './catch-up.ts';
import { waitDrained } from './durability.ts';
import { snapshotMetrics } from './metrics.ts';
import { loadStateAsOf } from './rebuild.ts';
import { consumeStateTopics, STATE_TOPICS } from './state-consumer.ts';
import { MarketState } from './state.ts';

export { STATE_TOPICS } from './state-consumer.ts';
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

/** What the start-up catch-up and the live loop share. */
interface Loop {
  readonly cfg: SnapshotConfig;
  readonly bus: Bus;
  readonly state: MarketState;
  readonly signal: AbortSignal;
  readonly cycle: (input: CycleInput) => Promise<void>;
}

/** Waits (bounded) until the raw writer stored everything published on `topics`; logs when it gave up. */
async function drainRawWriter(l: Loop, topics: readonly string[]): Promise<void> {
  const { cfg } = l;
  if (cfg.durableGroupId === null || topics.length === 0) return;
  let lookupErrors = 0;
  let lastError: unknown;
  const ok = await waitDrained(l.bus, cfg.durableGroupId, topics, cfg.drainTimeoutMs, l.signal, 25, (err) => {
    lookupErrors++;
    lastError = err;
    snapshotMetrics.offsetLookupErrors.inc({ where: 'drain' });
  });
  if (!ok && !l.signal.aborted) {
    snapshotMetrics.drainUnconfirmed.inc();
    log.warn(
      { group: cfg.durableGroupId, topics, lookupErrors, ...(lookupErrors > 0 ? { err: lastError } : {}) },
      lookupErrors > 0
        ? 'raw writer drain not confirmed (broker unavailable); computing from what is stored'
        : 'raw writer not drained in time; computing from what is stored',
    );
  }
}

/** The ticks missed while down (within the window), computed from the store as of each tick. */
async function catchUp(l: Loop, store: Store, startedAt: number, boundary: number): Promise<void> {
  const plan = await planCatchUp(store, l.cfg, startedAt, boundary, log);
  if (plan.length === 0) return;
  await drainRawWriter(l, RAW_MARKET_TOPICS);
  log.info({ ticks: plan.length }, 'catching up missed ticks from the store');
  for (const p of plan) {
    if (l.signal.aborted) return;
    await l.cycle({ symbol: p.symbol, tick: p.tick, source: 'store' });
  }
}

/** One live tick: drain what the cycles read from the store, run every symbol, prune the state. */
async function liveTick(l: Loop, tick: number, lateMs: number): Promise<void> {
  const { cfg } = l;
  const interval = cfg.snapshotIntervalMs;
  const late = lateMs > interval;
  // Trades published before the tick must be stored: the flow inventory is read from ClickHouse.
  await drainRawWriter(l, late ? RAW_MARKET_TOPICS : cfg.symbols.some((s) => FLOW_SYMBOLS.includes(s)) ? [TOPICS.option_trade] : []);
  for (const symbol of cfg.symbols) {
    if (l.signal.aborted) return;
    await l.cycle({ symbol, tick, source: late ? 'store' : 'live' });
  }
  l.state.prune(tick, Math.max(cfg.tickerFreshnessMs, cfg.priceFreshnessMs) + interval);
}

export async function startSnapshotProcessor(bus: Bus, store: Store, opts: SnapshotProcessorOptions = {}): Promise<SnapshotProcessor> {
  const cfg = snapshotConfig(opts.config);
  const clock = opts.clock ?? systemClock;
  const abort = new AbortController();
  // The commit gate has its own signal: on stop the pending commits may still become durable and land (2 s grace).
  const gateAbort = new AbortController();
  const state = new MarketState();
  const chainOpts = { tickerFreshnessMs: cfg.tickerFreshnessMs, priceFreshnessMs: cfg.priceFreshnessMs };
  const dealerFlow = new DealerFlow(store, { intervalMs: cfg.snapshotIntervalMs });
  const ctx: CycleContext = { store, bus, state, chain: chainOpts, dealerFlow };

  // 1. Rebuild the state from ClickHouse (everything before the committed offsets is stored there).
  const startedAt = clock.now();
  for (const symbol of cfg.symbols) await loadStateAsOf(store, symbol, startedAt, chainOpts, state);
  log.info({ symbols: cfg.symbols, at: new Date(startedAt).toISOString() }, 'snapshot state rebuilt from the raw tables');

  // 2. Resume consuming at the committed offsets; a batch commits once the raw writer stored it (fetching goes on).
  const consumer = await consumeStateTopics(bus, cfg, state, gateAbort.signal, log);

  // 3. Catch up the ticks missed while down, then 4. the live loop, aligned to the wall clock.
  const l: Loop = { cfg, bus, state, signal: abort.signal, cycle: cycleRunner(ctx, abort.signal, log, opts.onCycle) };
  const interval = cfg.snapshotIntervalMs;
  const boundary = alignedAtOrBefore(startedAt, interval);
  const ready = catchUp(l, store, startedAt, boundary);
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
      // A failed tick (store or broker down past every retry) is logged and counted; the next tick runs.
      onTick: (tick, lateMs) =>
        liveTick(l, tick, lateMs).catch((err: unknown) => {
          if (l.signal.aborted) return;
          for (const symbol of cfg.symbols) snapshotMetrics.skipped.inc({ symbol, reason: 'tick_failed' });
          log.error({ err, tick: new Date(tick).toISOString() }, 'snapshot tick failed; the next tick runs');
        }),
    }),
  );
  // Never an unhandled rejection between start and stop (stop awaits it again).
  loop.catch((err: unknown) => log.error({ err }, 'snapshot loop failed'));

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
