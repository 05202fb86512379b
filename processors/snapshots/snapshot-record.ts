/**
 * gex_snapshots row ⇄ StoredSnapshotRow (the engine's VenueSnapshotRow plus heatmap cells and inventory
 * statistics). Everything the levels need travels in the packed `levels_pack` column (level-pack.ts: binary
 * Float64, bit exact), so levels re-extracted from stored rows equal the ones computed in memory; the scalar,
 * inventory, `expiries` (JSON) and heatmap-cell columns are also stored readable for data engineers.
 */
import type { MarketSymbol, Venue } from '#schemas/events.ts';
import { GRID_MIN, GRID_POINTS, GRID_STEP } from '../analytics/profile.ts';
import type { VenueSnapshotRow } from '../analytics/snapshot-row.ts';
import type { ExpiryCells } from './expiry-cells.ts';
import type { InventoryStats } from './inventory-stats.ts';
import { decodeLevelsPack, decodeLevelsPackBytes, encodeLevelsPack, type PackedLevels } from './level-pack.ts';
import { msInt64, msValue, msColumn } from '#clickhouse/epoch-ms.ts';

export type SnapshotSource = 'live' | 'store';

export interface StoredSnapshotRow extends VenueSnapshotRow, ExpiryCells, InventoryStats {
  readonly source: SnapshotSource;
}

export const SNAPSHOT_TABLE = 'gex_snapshots';

/** Insertable object (column → value; times as epoch ms). */
export function toSnapshotRecord(r: StoredSnapshotRow): Record<string, unknown> {
  return {
    symbol: r.symbol,
    venue: r.venue,
    computed_at: r.computed_at,
    spot: r.spot,
    perp_price: r.perp_price,
    grid_min: r.grid_min,
    grid_step: r.grid_step,
    grid_points: r.grid_points,
    has_inventory: r.has_inventory,
    instruments_used: r.instruments_used,
    skipped_no_iv: r.skipped_no_iv,
    dropped_expired: r.dropped_expired,
    t_floored: r.t_floored,
    levels_pack: encodeLevelsPack(r),
    expiries: JSON.stringify(r.expiries),
    cell_expiry: r.cell_expiry,
    cell_strike: r.cell_strike,
    cell_gex_std: r.cell_gex_std,
    cell_gex_flow: r.cell_gex_flow,
    inv_contracts: r.inv_contracts,
    inv_net: r.inv_net,
    inv_abs: r.inv_abs,
    inv_unclipped_net: r.inv_unclipped_net,
    oi_total: r.oi_total,
    source: r.source,
  };
}

/**
 * SELECT list returning a row that `fromSnapshotRecord` reads. Converted columns get a new alias: an alias
 * equal to a column name would replace the column in WHERE / ORDER BY.
 */
export const SNAPSHOT_COLUMNS = `venue, ${msColumn('computed_at', 'computed_at_ms')}, grid_min, grid_step, grid_points, levels_pack,
  arrayMap(x -> ${msValue('x')}, cell_expiry) AS cell_expiry_ms, cell_strike, cell_gex_std, cell_gex_flow, source`;

/**
 * SNAPSHOT_COLUMNS without the four heatmap-cell arrays (half the read of a row, and most of its size as JSON), the
 * packed levels decoded by the store (`levels_bytes`, a quarter smaller than the base64 text, and no text to decode
 * here): the row `fromSnapshotLevelsRecord` reads.
 */
export const SNAPSHOT_LEVEL_COLUMNS = `venue, ${msColumn('computed_at', 'computed_at_ms')}, grid_min, grid_step, grid_points,
  base64Decode(levels_pack) AS levels_bytes, source`;

export interface SnapshotRecord {
  readonly venue: Venue;
  readonly computed_at_ms: number;
  readonly grid_min: number;
  readonly grid_step: number;
  readonly grid_points: number;
  readonly levels_pack: string;
  readonly cell_expiry_ms: number[];
  readonly cell_strike: number[];
  readonly cell_gex_std: number[];
  readonly cell_gex_flow: number[];
  readonly source: SnapshotSource;
}

/** A row of SNAPSHOT_LEVEL_COLUMNS: no heatmap cells, the packed levels as bytes. */
export interface SnapshotLevelsRecord extends Omit<
  SnapshotRecord,
  'levels_pack' | 'cell_expiry_ms' | 'cell_strike' | 'cell_gex_std' | 'cell_gex_flow'
> {
  readonly levels_bytes: Uint8Array;
}

type RowIdentity = Omit<SnapshotLevelsRecord, 'levels_bytes'>;
type Cells = Pick<StoredSnapshotRow, 'cell_expiry' | 'cell_strike' | 'cell_gex_std' | 'cell_gex_flow'>;

function snapshotRow(symbol: MarketSymbol, rec: RowIdentity, packed: PackedLevels, cells: Cells): StoredSnapshotRow {
  return {
    symbol,
    venue: rec.venue,
    computed_at: rec.computed_at_ms,
    grid_min: rec.grid_min,
    grid_step: rec.grid_step,
    grid_points: rec.grid_points,
    ...packed,
    ...cells,
    source: rec.source,
  };
}

export function fromSnapshotRecord(symbol: MarketSymbol, rec: SnapshotRecord): StoredSnapshotRow {
  const cells = {
    cell_expiry: rec.cell_expiry_ms,
    cell_strike: rec.cell_strike,
    cell_gex_std: rec.cell_gex_std,
    cell_gex_flow: rec.cell_gex_flow,
  };
  return snapshotRow(symbol, rec, decodeLevelsPack(rec.levels_pack), cells);
}

/** The heatmap cells of a row read without them: one frozen value shared by every such row (the arrays are readonly). */
const NO_CELLS: Cells = Object.freeze({
  cell_expiry: Object.freeze([]),
  cell_strike: Object.freeze([]),
  cell_gex_std: Object.freeze([]),
  cell_gex_flow: Object.freeze([]),
});

/** The row of a SNAPSHOT_LEVEL_COLUMNS record, its heatmap-cell arrays empty. */
export function fromSnapshotLevelsRecord(symbol: MarketSymbol, rec: SnapshotLevelsRecord): StoredSnapshotRow {
  return snapshotRow(symbol, rec, decodeLevelsPackBytes(rec.levels_bytes), NO_CELLS);
}

/**
 * The levels read of a venue-filtered point-in-time lookup: the key columns and the one packed column (no
 * heatmap cells): a point read on gex_snapshots costs about 0.5 ms per column stream.
 */
export const LEVEL_ROW_COLUMNS = `venue, ${msInt64('computed_at')} AS t, levels_pack`;

export interface LevelRowRecord {
  readonly venue: Venue;
  /** computed_at, epoch ms (Int64: a JSON string). */
  readonly t: string | number;
  readonly levels_pack: string;
}

export type LevelRow = VenueSnapshotRow & InventoryStats;

export function fromLevelRowRecord(symbol: MarketSymbol, r: LevelRowRecord): LevelRow {
  return {
    symbol,
    venue: r.venue,
    computed_at: Number(r.t),
    grid_min: GRID_MIN,
    grid_step: GRID_STEP,
    grid_points: GRID_POINTS,
    ...decodeLevelsPack(r.levels_pack),
  };
}
