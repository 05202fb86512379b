/**
 * One snapshot cycle for one symbol at one aligned tick:
 *   state (live memory, or rebuilt from the raw tables as of the tick) → consolidated chain rows
 *   (option_chain_snapshots*) → venue rows → store rows →
 *   gex_stress (shocked totals, analytics/stress.ts) → levels of both models → gex_levels + gamma_flow → publish on analytics.snapshots.v1.
 * A tick whose venue rows are already stored (a crash between the inserts) is completed from those rows, so
 * gex_levels and gamma_flow always describe the stored rows.
 */
import type { Store } from '#clickhouse/store.ts';
import type { Bus } from '#bus/types.ts';
import type { MarketSymbol } from '#schemas/events.ts';
import { FLOW_SYMBOLS } from '../analytics/dealer.ts';
import type { DealerModel } from '../analytics/types.ts';
import type { DealerFlow } from '../dealer-flow/dealer-flow.ts';
import type { ChainOptions } from './chain.ts';
import { computeSnapshot } from './compute-step.ts';
import type { GammaFlowPoint } from './gamma-flow.ts';
import { gammaFlowPoints, levelsOf } from './levels-step.ts';
import type { SnapshotLevels } from './levels-step.ts';
import { snapshotMetrics } from './metrics.ts';
import { loadStateAsOf } from './rebuild.ts';
import type { SnapshotSource, StoredSnapshotRow } from './snapshot-record.ts';
import { lastGammaFlowPoint, rowsAt } from './processor-reads.ts';
import type { MarketState } from './state.ts';
import { announceSnapshot, storeLevelsAndFlow, storeSnapshotRows } from './write-step.ts';
import { storeStressRows } from './stress-record.ts';
import { chainRows } from './option-chain.ts';
import { storeChainRows } from './option-chain-record.ts';

export interface CycleContext {
  readonly store: Store;
  /** null: do not publish (tests, offline recomputation). */
  readonly bus: Bus | null;
  readonly state: MarketState;
  readonly chain: ChainOptions;
  /** The dealer-flow processor, checkpointed at every tick of a flow symbol (absent: reads only). */
  readonly dealerFlow?: DealerFlow;
}

export type CycleResult =
  | {
      readonly kind: 'stored';
      readonly symbol: MarketSymbol;
      readonly computedAt: number;
      /** live: memory state; store: rebuilt as of the tick; resumed: rows found already stored. */
      readonly source: SnapshotSource | 'resumed';
      readonly rows: readonly StoredSnapshotRow[];
      readonly snapshot: SnapshotLevels;
    }
  | { readonly kind: 'skipped'; readonly symbol: MarketSymbol; readonly computedAt: number; readonly reason: 'no_spot' | 'no_instruments' };

async function previousFlow(store: Store, symbol: MarketSymbol, tick: number): Promise<Record<DealerModel, GammaFlowPoint | null>> {
  return { flow: await lastGammaFlowPoint(store, symbol, 'flow', tick), std: await lastGammaFlowPoint(store, symbol, 'std', tick) };
}

export async function runCycle(ctx: CycleContext, symbol: MarketSymbol, tick: number, source: SnapshotSource): Promise<CycleResult> {
  const end = snapshotMetrics.cycleDuration.startTimer({ symbol, source });
  try {
    if (ctx.dealerFlow !== undefined && FLOW_SYMBOLS.includes(symbol)) await ctx.dealerFlow.tick(symbol, tick);
    let rows: readonly StoredSnapshotRow[] = source === 'store' ? await rowsAt(ctx.store, symbol, tick) : [];
    const resumed = rows.length > 0;
    if (!resumed) {
      const state = source === 'live' ? ctx.state.view(symbol) : (await loadStateAsOf(ctx.store, symbol, tick, ctx.chain)).view(symbol);
      const r = await computeSnapshot(ctx.store, symbol, tick, state, ctx.chain, source);
      if (r.kind === 'skipped') {
        snapshotMetrics.skipped.inc({ symbol, reason: 'no_data' });
        return { kind: 'skipped', symbol, computedAt: tick, reason: r.reason };
      }
      rows = r.rows;
      await storeChainRows(ctx.store, symbol, tick, chainRows(r.chain, r.instruments));
      await storeSnapshotRows(ctx.store, symbol, tick, rows);
    }
    await storeStressRows(ctx.store, symbol, tick, rows);
    const snapshot = levelsOf(symbol, tick, rows);
    await storeLevelsAndFlow(ctx.store, snapshot, gammaFlowPoints(snapshot, await previousFlow(ctx.store, symbol, tick)));
    if (ctx.bus !== null) await announceSnapshot(ctx.bus, snapshot);
    snapshotMetrics.written.inc({ symbol, source });
    for (const r of rows) snapshotMetrics.instruments.set({ symbol, venue: r.venue }, r.instruments_used + r.skipped_no_iv);
    if (snapshot.coverage !== null) snapshotMetrics.coverage.set({ symbol }, snapshot.coverage);
    return { kind: 'stored', symbol, computedAt: tick, source: resumed ? 'resumed' : source, rows, snapshot };
  } finally {
    end();
  }
}
