/**
 * The snapshot processor's own reads of the tables it writes: one instant's venue rows (state carried across
 * ticks; the replay reads those of a range of instants at once), the last gamma-flow point (the cumulative sum
 * goes on) and the last completed tick (restart point).
 * The API's point-in-time reads are in query-api/gex/snapshot-point-reads.ts.
 */
import type { Store } from '#clickhouse/store.ts';
import { byteLengthAt, bytesAt, columnOf } from '#clickhouse/row-binary.ts';
import type { MarketSymbol, Venue } from '#schemas/events.ts';
import type { DealerModel } from '../analytics/types.ts';
import type { GammaFlowPoint } from './gamma-flow.ts';
import { fromSnapshotLevelsRecord, fromSnapshotRecord, SNAPSHOT_COLUMNS, SNAPSHOT_LEVEL_COLUMNS } from './snapshot-record.ts';
import type { SnapshotRecord, SnapshotSource, StoredSnapshotRow } from './snapshot-record.ts';
import { msParam, msColumn, msNullableColumn } from '#clickhouse/epoch-ms.ts';

const ROWS_AT = `SELECT ${SNAPSHOT_COLUMNS} FROM gex_snapshots
WHERE symbol = {symbol:String} AND computed_at = ${msParam('t')}
ORDER BY venue LIMIT 1 BY venue`;

/** Every venue row of the snapshot at exactly `computedAt` (empty when there is none). */
export async function rowsAt(store: Store, symbol: MarketSymbol, computedAt: number): Promise<StoredSnapshotRow[]> {
  const rows = await store.query<SnapshotRecord>(ROWS_AT, { symbol, t: Math.trunc(computedAt) });
  return rows.map((r) => fromSnapshotRecord(symbol, r));
}

/** The rows of every instant in [from, to], one per (instant, venue), in that order; `columns` what is read of each. */
const recordsBetween = (columns: string): string => `SELECT ${columns} FROM gex_snapshots
WHERE symbol = {symbol:String} AND computed_at >= ${msParam('from')} AND computed_at <= ${msParam('to')}
ORDER BY computed_at, venue LIMIT 1 BY computed_at, venue`;
const RECORDS_BETWEEN = recordsBetween(SNAPSHOT_COLUMNS);

/**
 * The venue rows of every snapshot instant in [fromMs, toMs], in (computed_at, venue) order, one per (instant,
 * venue): for each instant the rows `rowsAt` reads, in one query for the whole range. Records as stored
 * (`fromSnapshotRecord` decodes one), so a caller holding many instants decodes one instant at a time. The
 * result is every row of the range: callers bound the range (the rows are ~30-60 KB a venue).
 */
export async function snapshotRecordsBetween(store: Store, symbol: MarketSymbol, fromMs: number, toMs: number): Promise<SnapshotRecord[]> {
  return store.query<SnapshotRecord>(RECORDS_BETWEEN, { symbol, from: Math.trunc(fromMs), to: Math.trunc(toMs) });
}

const LEVEL_RECORDS_BETWEEN = recordsBetween(SNAPSHOT_LEVEL_COLUMNS);

/**
 * The venue rows of a range of instants as read for their levels (no heatmap cells), each row decoded when asked
 * for: the packed levels (~34 KB a venue) stay bytes of the result until then, so a reader that renders one instant
 * at a time decodes each one's rows as it renders it and none outlives its instant.
 */
export interface LevelRows {
  readonly rows: number;
  /** Each row's instant (computed_at, ms), ascending. */
  readonly computedAt: Float64Array;
  /** Size of the rows as read, about: their packed levels and ~200 bytes a row. */
  readonly bytes: number;
  /** Row i (its heatmap-cell arrays empty), decoded now. */
  row(i: number): StoredSnapshotRow;
  /** Done with the rows (Store.releaseColumns): no row is asked for after. */
  release(): void;
}

/** Bytes a row is counted besides its packed levels (LevelRows.bytes): its other columns, about. */
const ROW_BYTES = 200;

const NO_BYTES = new Uint8Array(0);

/**
 * The rows `snapshotRecordsBetween` reads, without the heatmap cells: for readers that render levels and never the
 * strike x expiry heatmap (the replay's levels channels). Read column-wise through Native (no JSON: about half the
 * time and a fraction of the garbage of the same rows as JSON; ~4x faster than the full rows as JSON), the packed
 * levels decoded from base64 by the store and kept as a view of the result's bytes until the row is decoded.
 */
export async function levelRowsBetween(store: Store, symbol: MarketSymbol, fromMs: number, toMs: number): Promise<LevelRows> {
  const r = await store.queryColumns(
    LEVEL_RECORDS_BETWEEN,
    { symbol, from: Math.trunc(fromMs), to: Math.trunc(toMs) },
    { views: ['levels_bytes'] },
  );
  const venue = columnOf(r, 'venue', 'string', 'snapshot read').values;
  const at = columnOf(r, 'computed_at_ms', 'number', 'snapshot read').values;
  const gridMin = columnOf(r, 'grid_min', 'number', 'snapshot read').values;
  const gridStep = columnOf(r, 'grid_step', 'number', 'snapshot read').values;
  const gridPoints = columnOf(r, 'grid_points', 'number', 'snapshot read').values;
  const pack = columnOf(r, 'levels_bytes', 'bytes', 'snapshot read');
  const source = columnOf(r, 'source', 'string', 'snapshot read').values;
  let bytes = 0;
  for (let i = 0; i < r.rows; i++) bytes += byteLengthAt(pack, i) + ROW_BYTES;
  return {
    rows: r.rows,
    computedAt: at,
    bytes,
    row: (i) => {
      if (!(i >= 0 && i < r.rows)) throw new RangeError('level rows: no such row');
      return fromSnapshotLevelsRecord(symbol, {
        venue: venue[i] as Venue,
        computed_at_ms: at[i] as number,
        grid_min: gridMin[i] as number,
        grid_step: gridStep[i] as number,
        grid_points: gridPoints[i] as number,
        levels_bytes: bytesAt(pack, i) ?? NO_BYTES,
        source: source[i] as SnapshotSource,
      });
    },
    release: () => store.releaseColumns(r),
  };
}

export const GAMMA_FLOW_COLUMNS = `symbol, ${msColumn('computed_at', 'computed_at_ms')}, model, positioning, spot,
  ${msNullableColumn('prev_computed_at', 'prev_computed_at_ms')},
  prev_spot, pct_change, net_gex, increment, cumulative`;

export type GammaFlowRecord = Omit<GammaFlowPoint, 'computed_at' | 'prev_computed_at'> & {
  computed_at_ms: number;
  prev_computed_at_ms: number | null;
};

export function fromFlowRecord({ computed_at_ms, prev_computed_at_ms, ...r }: GammaFlowRecord): GammaFlowPoint {
  return { ...r, computed_at: computed_at_ms, prev_computed_at: prev_computed_at_ms };
}

const LAST_FLOW = `SELECT ${GAMMA_FLOW_COLUMNS} FROM gamma_flow
WHERE symbol = {symbol:String} AND model = {model:String} AND computed_at < ${msParam('before')}
ORDER BY computed_at DESC LIMIT 1`;

/** The newest gamma-flow point of a series strictly before `beforeMs`. */
export async function lastGammaFlowPoint(
  store: Store,
  symbol: MarketSymbol,
  model: DealerModel,
  beforeMs: number,
): Promise<GammaFlowPoint | null> {
  const r = await store.query<GammaFlowRecord>(LAST_FLOW, { symbol, model, before: Math.trunc(beforeMs) });
  return r[0] === undefined ? null : fromFlowRecord(r[0]);
}

const LAST_COMPLETE = `SELECT ${msColumn('computed_at', 't')} FROM gamma_flow
WHERE symbol = {symbol:String}
ORDER BY computed_at DESC LIMIT 1`;

/**
 * The last tick whose cycle completed: gamma_flow is the last table a cycle writes, so a tick with a
 * gamma-flow row has all its rows stored.
 */
export async function lastCompletedTick(store: Store, symbol: MarketSymbol): Promise<number | null> {
  const r = await store.query<{ t: number }>(LAST_COMPLETE, { symbol });
  return r[0]?.t ?? null;
}
