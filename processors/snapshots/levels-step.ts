/**
 * Step 2 of a cycle (pure): stored venue rows → aggregate levels of all venues for both models (every optional
 * block), the flow-inventory coverage, and the gamma-flow points that follow the previous ones.
 */
import type { MarketSymbol } from '#schemas/events.ts';
import { levelsFromRows } from '../analytics/aggregate.ts';
import type { SnapshotMeta } from '../analytics/aggregate.ts';
import { STORED_INCLUDES } from '../analytics/levels.ts';
import type { LevelsData } from '../analytics/levels.ts';
import type { DealerModel } from '../analytics/types.ts';
import { nextGammaFlowPoint } from './gamma-flow.ts';
import type { GammaFlowPoint } from './gamma-flow.ts';
import { coverageOf } from './inventory-stats.ts';
import type { StoredSnapshotRow } from './snapshot-record.ts';

export const MODELS: readonly DealerModel[] = ['flow', 'std'];

export interface SnapshotLevels {
  readonly meta: SnapshotMeta;
  readonly levels: Readonly<Record<DealerModel, LevelsData>>;
  readonly coverage: number | null;
}

export function metaOf(symbol: MarketSymbol, computedAt: number, rows: readonly StoredSnapshotRow[]): SnapshotMeta {
  const first = rows[0];
  return { symbol, computed_at: computedAt, spot: first?.spot ?? Number.NaN, perp_price: first?.perp_price ?? null };
}

export function levelsOf(symbol: MarketSymbol, computedAt: number, rows: readonly StoredSnapshotRow[]): SnapshotLevels {
  const meta = metaOf(symbol, computedAt, rows);
  return {
    meta,
    levels: {
      flow: levelsFromRows(meta, rows, 'flow', undefined, STORED_INCLUDES),
      std: levelsFromRows(meta, rows, 'std', undefined, STORED_INCLUDES),
    },
    coverage: coverageOf(rows),
  };
}

export function gammaFlowPoints(s: SnapshotLevels, prev: Readonly<Record<DealerModel, GammaFlowPoint | null>>): GammaFlowPoint[] {
  return MODELS.map((model) =>
    nextGammaFlowPoint(prev[model], {
      symbol: s.meta.symbol,
      computed_at: s.meta.computed_at,
      model,
      positioning: s.levels[model].positioning,
      spot: s.meta.spot,
      net_gex: s.levels[model].all_expiry.net_gex,
    }),
  );
}
