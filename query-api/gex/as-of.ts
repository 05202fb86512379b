/**
 * Point-in-time reads for the API, from stored snapshot rows alone:
 * - levelsAsOf: the newest snapshot at or before the instant (never after), re-aggregated for the venue subset
 *   with the engine's levelsFromRows; the model that ran is in `levels.positioning` (flow falls back to std
 *   for SOLUSDT/HYPEUSDT or without measured inventory). Because the rows were computed with the dealer
 *   inventory rebuilt as of computed_at (inventory.ts) and are immutable, one instant always gives the same
 *   numbers.
 * - latestSnapshot: the newest rows of a symbol.
 */
import type { Store } from '#clickhouse/store.ts';
import { VENUES } from '#schemas/events.ts';
import type { MarketSymbol, Venue } from '#schemas/events.ts';
import { levelsFromRows, selectRows } from '#processors/analytics/aggregate.ts';
import type { SnapshotMeta } from '#processors/analytics/aggregate.ts';
import { STORED_INCLUDES, type LevelsData, type LevelsInclude } from '#processors/analytics/levels.ts';
import type { DealerModel } from '#processors/analytics/types.ts';
import { coverageOf } from '#processors/snapshots/inventory-stats.ts';
import { metaOf } from '#processors/snapshots/levels-step.ts';
import type { LevelRow, StoredSnapshotRow } from '#processors/snapshots/snapshot-record.ts';
import { rowsAt } from '#processors/snapshots/processor-reads.ts';
import {
  latestSnapshotTime,
  levelRowsAt,
  levelRowsAtOrBefore,
  levelsRowAtOrBefore,
  snapshotTimeAtOrBefore,
} from './snapshot-point-reads.ts';
import type { LevelRowsAt } from './snapshot-point-reads.ts';
import { snapshotTimesOf } from './snapshot-times.ts';

export interface StoredSnapshot {
  readonly meta: SnapshotMeta;
  readonly rows: readonly StoredSnapshotRow[];
}

export interface LevelsAsOfRequest {
  readonly symbol: MarketSymbol;
  readonly asOfMs: number;
  readonly model: DealerModel;
  /** API `exchanges` filter (unknown names ignored; none known → all venues). */
  readonly venues?: readonly string[];
  readonly include?: LevelsInclude;
}

export interface LevelsAsOfResult {
  readonly levels: LevelsData;
  /** computed_at of the snapshot used, ms UTC (≤ asOfMs). */
  readonly snapshotAt: number;
  /** (asOf − snapshotAt) in seconds. */
  readonly lagSeconds: number;
  readonly spot: number;
  readonly perpPrice: number | null;
  /** Flow-inventory coverage Σ|inv| / ΣOI over the selected venues. */
  readonly coverage: number | null;
}

/** Levels of one stored snapshot for a venue filter and model. */
export function levelsOfSnapshot(
  s: StoredSnapshot,
  model: DealerModel,
  venues?: readonly string[],
  include?: LevelsInclude,
): { levels: LevelsData; coverage: number | null } {
  return {
    levels: levelsFromRows(s.meta, s.rows, model, venues, include),
    coverage: coverageOf(selectRows(s.rows, venues) as StoredSnapshotRow[]),
  };
}

/** The stored snapshot at or before `asOfMs` (never after), or null (before the first snapshot). */
export async function snapshotAsOf(store: Store, symbol: MarketSymbol, asOfMs: number): Promise<StoredSnapshot | null> {
  const t = await snapshotTimeAtOrBefore(store, symbol, asOfMs);
  if (t === null) return null;
  const rows = await rowsAt(store, symbol, t);
  return rows.length === 0 ? null : { meta: metaOf(symbol, t, rows), rows };
}

export async function latestSnapshot(store: Store, symbol: MarketSymbol): Promise<StoredSnapshot | null> {
  const t = await latestSnapshotTime(store, symbol);
  if (t === null) return null;
  const rows = await rowsAt(store, symbol, t);
  return rows.length === 0 ? null : { meta: metaOf(symbol, t, rows), rows };
}

/** The known venue names of a filter (trimmed, lower-cased, canonical order). */
export function selectedVenues(venues?: readonly string[]): Venue[] {
  const named = new Set((venues ?? []).map((v) => v.trim().toLowerCase()));
  return VENUES.filter((v) => named.has(v));
}

/**
 * A settled instant comes from the in-process index (one query: the rows at exactly that instant); otherwise the
 * instant is a subquery of the row query. A snapshot the index names but the store lacks: the store decides.
 */
async function venueLevelRows(store: Store, symbol: MarketSymbol, asOfMs: number, known: readonly Venue[]): Promise<LevelRowsAt | null> {
  const t = snapshotTimesOf(store).atOrBefore(symbol, asOfMs);
  if (t === null) return null;
  const r = t === undefined ? null : await levelRowsAt(store, symbol, t, known);
  return r ?? levelRowsAtOrBefore(store, symbol, asOfMs, known);
}

/** True when the filter selects every venue (no filter, or no known venue name in it). */
export function selectsAllVenues(venues?: readonly string[]): boolean {
  return !(venues ?? []).some((v) => (VENUES as readonly string[]).includes(v.trim().toLowerCase()));
}

const INCLUDE_KEYS = [
  ['ranked', 'ranked'],
  ['max_pain', 'max_pain'],
  ['expected_move', 'expected_move'],
  ['zones', 'gamma_flip_zones'],
  ['spot', 'spot'],
  ['profile', 'profile'],
  ['by_strike', 'by_strike'],
] as const;

/** Keep only the requested optional blocks of a full (ALL_INCLUDES) levels document. */
export function restrictIncludes(full: LevelsData, include: LevelsInclude = []): LevelsData {
  const out: Record<string, unknown> = { ...full };
  for (const [inc, key] of INCLUDE_KEYS) if (!include.includes(inc)) delete out[key];
  return out as unknown as LevelsData;
}

/**
 * All venues (the common case): one query on gex_levels, whose payload was extracted from the same rows with
 * every block. A venue subset: the rows of that instant, re-aggregated.
 */
export async function levelsAsOf(store: Store, req: LevelsAsOfRequest): Promise<LevelsAsOfResult | null> {
  const storedOnly = (req.include ?? []).every((i) => STORED_INCLUDES.includes(i));
  if (selectsAllVenues(req.venues) && storedOnly) {
    const row = await levelsRowAtOrBefore(store, req.symbol, req.model, req.asOfMs);
    if (row === null) return null;
    return {
      levels: restrictIncludes(JSON.parse(row.payload) as LevelsData, req.include),
      snapshotAt: row.t,
      lagSeconds: (req.asOfMs - row.t) / 1000,
      spot: row.spot,
      perpPrice: row.perp_price,
      coverage: row.coverage,
    };
  }
  // A venue subset (or a block gex_levels does not store): one query returning only the selected venues' packed
  // level columns (both models).
  const known = selectsAllVenues(req.venues) ? [...VENUES] : selectedVenues(req.venues);
  const r = await venueLevelRows(store, req.symbol, req.asOfMs, known);
  if (r === null) return null;
  const meta: SnapshotMeta = { symbol: req.symbol, computed_at: r.t, spot: r.spot, perp_price: r.perp_price };
  return {
    levels: levelsFromRows(meta, r.rows, req.model, known, req.include),
    snapshotAt: r.t,
    lagSeconds: (req.asOfMs - r.t) / 1000,
    spot: r.spot,
    perpPrice: r.perp_price,
    coverage: coverageOf(selectRows(r.rows, known) as LevelRow[]),
  };
}
