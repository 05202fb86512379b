/**
 * gex_snapshots row ⇄ StoredSnapshotRow (the engine's VenueSnapshotRow plus heatmap cells and inventory
 * statistics). Arrays map to Array(Float64) columns; the near-expiry blocks and expiry statistics travel as
 * JSON strings. Float64 survives the round trip bit for bit (JSON shortest round-trip form both ways), so
 * levels re-extracted from stored rows equal the ones computed in memory.
 */
import type { MarketSymbol, Venue } from '../../schemas/events.ts';
import { GRID_MIN, GRID_POINTS, GRID_STEP } from '../analytics/profile.ts';
import type { ExpiryStat, NearExpiryBlock, VenueSnapshotRow } from '../analytics/snapshot-row.ts';
import type { ExpiryCells } from './expiry-cells.ts';
import type { InventoryStats } from './inventory-stats.ts';
import { msColumn } from './sql.ts';

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
    strikes: r.strikes,
    call_oi: r.call_oi,
    put_oi: r.put_oi,
    call_gex_std: r.call_gex_std,
    put_gex_std: r.put_gex_std,
    call_gex_flow: r.call_gex_flow,
    put_gex_flow: r.put_gex_flow,
    call_gex_flow_abs: r.call_gex_flow_abs,
    put_gex_flow_abs: r.put_gex_flow_abs,
    profile_std: r.profile_std,
    profile_std_slope: r.profile_std_slope,
    profile_flow: r.profile_flow,
    profile_flow_slope: r.profile_flow_slope,
    near: JSON.stringify(r.near),
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
export const SNAPSHOT_COLUMNS = `symbol, venue, ${msColumn('computed_at', 'computed_at_ms')}, spot, perp_price, grid_min, grid_step, grid_points,
  has_inventory, instruments_used, skipped_no_iv, dropped_expired, t_floored, strikes, call_oi, put_oi, call_gex_std,
  put_gex_std, call_gex_flow, put_gex_flow, call_gex_flow_abs, put_gex_flow_abs, profile_std, profile_std_slope,
  profile_flow, profile_flow_slope, near, expiries,
  arrayMap(x -> toFloat64(toUnixTimestamp64Milli(x)), cell_expiry) AS cell_expiry_ms, cell_strike, cell_gex_std, cell_gex_flow,
  inv_contracts, inv_net, inv_abs, inv_unclipped_net, oi_total, source`;

export interface SnapshotRecord {
  readonly symbol: MarketSymbol;
  readonly venue: Venue;
  readonly computed_at_ms: number;
  readonly spot: number;
  readonly perp_price: number | null;
  readonly grid_min: number;
  readonly grid_step: number;
  readonly grid_points: number;
  readonly has_inventory: boolean;
  readonly instruments_used: number;
  readonly skipped_no_iv: number;
  readonly dropped_expired: number;
  readonly t_floored: number;
  readonly strikes: number[];
  readonly call_oi: number[];
  readonly put_oi: number[];
  readonly call_gex_std: number[];
  readonly put_gex_std: number[];
  readonly call_gex_flow: number[];
  readonly put_gex_flow: number[];
  readonly call_gex_flow_abs: number[];
  readonly put_gex_flow_abs: number[];
  readonly profile_std: number[];
  readonly profile_std_slope: number[];
  readonly profile_flow: number[];
  readonly profile_flow_slope: number[];
  readonly near: string;
  readonly expiries: string;
  readonly cell_expiry_ms: number[];
  readonly cell_strike: number[];
  readonly cell_gex_std: number[];
  readonly cell_gex_flow: number[];
  readonly inv_contracts: number;
  readonly inv_net: number;
  readonly inv_abs: number;
  readonly inv_unclipped_net: number;
  readonly oi_total: number;
  readonly source: SnapshotSource;
}

export function fromSnapshotRecord(rec: SnapshotRecord): StoredSnapshotRow {
  const { computed_at_ms, cell_expiry_ms, ...r } = rec;
  return {
    ...r,
    computed_at: computed_at_ms,
    cell_expiry: cell_expiry_ms,
    near: JSON.parse(r.near) as NearExpiryBlock[],
    expiries: JSON.parse(r.expiries) as ExpiryStat[],
  };
}

/** Which heavy column groups a levels read needs (columns not needed are not read at all). */
export interface LevelColumnsNeed {
  readonly std: boolean;
  readonly flow: boolean;
  /** Per-expiry statistics (expected move). */
  readonly expiries: boolean;
}

const STD_ARRAYS = ['call_gex_std', 'put_gex_std', 'profile_std', 'profile_std_slope'] as const;
const FLOW_ARRAYS = ['call_gex_flow', 'put_gex_flow', 'call_gex_flow_abs', 'put_gex_flow_abs', 'profile_flow', 'profile_flow_slope'] as const;

/**
 * The levels subset of a row (no heatmap cells, no source) for a venue-filtered point-in-time read: plain
 * column names only. A point read on gex_snapshots costs about 0.5 ms per column stream and the analysis of
 * every SELECT expression costs as much again, so column groups a read does not need are not selected at all
 * (fromLevelRowRecord fills them with empty arrays: the engine reads a missing entry as 0).
 */
export function levelRowColumns(need: LevelColumnsNeed): string {
  return [
    'venue, toUnixTimestamp64Milli(computed_at) AS t, spot, perp_price, has_inventory',
    'instruments_used, skipped_no_iv, dropped_expired, t_floored, inv_contracts, inv_net, inv_abs, inv_unclipped_net, oi_total',
    'strikes, call_oi, put_oi, near',
    ...(need.std ? STD_ARRAYS : []),
    ...(need.flow ? FLOW_ARRAYS : []),
    ...(need.expiries ? ['expiries'] : []),
  ].join(', ');
}

type LevelArrays = 'strikes' | 'call_oi' | 'put_oi' | (typeof STD_ARRAYS)[number] | (typeof FLOW_ARRAYS)[number];

export type LevelRowRecord = Pick<
  SnapshotRecord,
  | 'venue' | 'spot' | 'perp_price' | 'has_inventory' | 'instruments_used' | 'skipped_no_iv' | 'dropped_expired' | 't_floored'
  | 'inv_contracts' | 'inv_net' | 'inv_abs' | 'inv_unclipped_net' | 'oi_total' | 'near'
> &
  Partial<Pick<SnapshotRecord, LevelArrays | 'expiries'>> & {
    /** computed_at, epoch ms (Int64: a JSON string). */
    readonly t: string | number;
  };

export type LevelRow = VenueSnapshotRow & InventoryStats;

const NONE: readonly number[] = [];

export function fromLevelRowRecord(symbol: MarketSymbol, r: LevelRowRecord): LevelRow {
  return {
    symbol,
    venue: r.venue,
    computed_at: Number(r.t),
    spot: r.spot,
    perp_price: r.perp_price,
    grid_min: GRID_MIN,
    grid_step: GRID_STEP,
    grid_points: GRID_POINTS,
    has_inventory: r.has_inventory,
    instruments_used: r.instruments_used,
    skipped_no_iv: r.skipped_no_iv,
    dropped_expired: r.dropped_expired,
    t_floored: r.t_floored,
    strikes: r.strikes ?? NONE,
    call_oi: r.call_oi ?? NONE,
    put_oi: r.put_oi ?? NONE,
    call_gex_std: r.call_gex_std ?? NONE,
    put_gex_std: r.put_gex_std ?? NONE,
    call_gex_flow: r.call_gex_flow ?? NONE,
    put_gex_flow: r.put_gex_flow ?? NONE,
    call_gex_flow_abs: r.call_gex_flow_abs ?? NONE,
    put_gex_flow_abs: r.put_gex_flow_abs ?? NONE,
    profile_std: r.profile_std ?? NONE,
    profile_std_slope: r.profile_std_slope ?? NONE,
    profile_flow: r.profile_flow ?? NONE,
    profile_flow_slope: r.profile_flow_slope ?? NONE,
    near: JSON.parse(r.near) as NearExpiryBlock[],
    expiries: r.expiries === undefined ? [] : (JSON.parse(r.expiries) as ExpiryStat[]),
    inv_contracts: r.inv_contracts,
    inv_net: r.inv_net,
    inv_abs: r.inv_abs,
    inv_unclipped_net: r.inv_unclipped_net,
    oi_total: r.oi_total,
  };
}
