/**
 * The API's point reads on the snapshot tables. Snapshot instants are found on the primary key (symbol,
 * computed_at) reading backwards from the bound (optimize_read_in_order: LIMIT 1 stops at the first granule),
 * and the rows of one instant are one key range; duplicates a crash might have left are removed with LIMIT 1 BY
 * venue (or by selectRows).
 */
import type { Store } from '#clickhouse/store.ts';
import { msParam, msInt64, msColumn } from '#clickhouse/epoch-ms.ts';
import type { DealerModel } from '#processors/analytics/types.ts';
import type { GammaFlowPoint } from '#processors/snapshots/gamma-flow.ts';
import { fromFlowRecord, GAMMA_FLOW_COLUMNS } from '#processors/snapshots/processor-reads.ts';
import type { GammaFlowRecord } from '#processors/snapshots/processor-reads.ts';
import { fromLevelRowRecord, LEVEL_ROW_COLUMNS } from '#processors/snapshots/snapshot-record.ts';
import type { LevelRow, LevelRowRecord } from '#processors/snapshots/snapshot-record.ts';
import type { MarketSymbol } from '#schemas/events.ts';

/**
 * Instants are looked up in gex_levels (narrow key, written once a cycle's rows are all stored), first within
 * LOOKBACK_MS before the instant (prunes every other part and partition), then unbounded.
 */
export const LOOKBACK_MS = 3_600_000;

const AT_OR_BEFORE_RECENT = `SELECT ${msColumn('computed_at', 't')} FROM gex_levels
WHERE symbol = {symbol:String} AND computed_at <= ${msParam('asOf')} AND computed_at > ${msParam('from')}
ORDER BY computed_at DESC LIMIT 1`;

const AT_OR_BEFORE = `SELECT ${msColumn('computed_at', 't')} FROM gex_levels
WHERE symbol = {symbol:String} AND computed_at <= ${msParam('asOf')}
ORDER BY computed_at DESC LIMIT 1`;

const LATEST = `SELECT ${msColumn('computed_at', 't')} FROM gex_levels
WHERE symbol = {symbol:String}
ORDER BY computed_at DESC LIMIT 1`;

/** computed_at of the newest completed snapshot at or before `asOfMs` (never after), or null. */
export async function snapshotTimeAtOrBefore(store: Store, symbol: MarketSymbol, asOfMs: number): Promise<number | null> {
  const asOf = Math.floor(asOfMs);
  const recent = await store.query<{ t: number }>(AT_OR_BEFORE_RECENT, { symbol, asOf, from: asOf - LOOKBACK_MS });
  if (recent[0] !== undefined) return recent[0].t;
  const r = await store.query<{ t: number }>(AT_OR_BEFORE, { symbol, asOf });
  return r[0]?.t ?? null;
}

export interface StoredLevelsRow {
  readonly t: number;
  readonly positioning: DealerModel;
  readonly spot: number;
  readonly perp_price: number | null;
  readonly coverage: number | null;
  /** LevelsData JSON with the compact optional blocks (STORED_INCLUDES: not profile, by_strike), all venues. */
  readonly payload: string;
}

const LEVELS_COLUMNS = `${msColumn('computed_at', 't')}, positioning, spot, perp_price, coverage, payload`;
const LEVELS_RECENT = `SELECT ${LEVELS_COLUMNS} FROM gex_levels
WHERE symbol = {symbol:String} AND model = {model:String} AND computed_at <= ${msParam('asOf')} AND computed_at > ${msParam('from')}
ORDER BY computed_at DESC LIMIT 1`;
const LEVELS_ANY = `SELECT ${LEVELS_COLUMNS} FROM gex_levels
WHERE symbol = {symbol:String} AND model = {model:String} AND computed_at <= ${msParam('asOf')}
ORDER BY computed_at DESC LIMIT 1`;

/** The all-venue levels row of the newest completed snapshot at or before `asOfMs` (one query in the common case). */
export async function levelsRowAtOrBefore(
  store: Store,
  symbol: MarketSymbol,
  model: DealerModel,
  asOfMs: number,
): Promise<StoredLevelsRow | null> {
  const asOf = Math.floor(asOfMs);
  const recent = await store.query<StoredLevelsRow>(LEVELS_RECENT, { symbol, model, asOf, from: asOf - LOOKBACK_MS });
  if (recent[0] !== undefined) return recent[0];
  const r = await store.query<StoredLevelsRow>(LEVELS_ANY, { symbol, model, asOf });
  return r[0] ?? null;
}

export async function latestSnapshotTime(store: Store, symbol: MarketSymbol): Promise<number | null> {
  const r = await store.query<{ t: number }>(LATEST, { symbol });
  return r[0]?.t ?? null;
}

/**
 * No ORDER BY / LIMIT BY: sorting the one or few rows costs a pipeline stage; duplicates a crash might have left
 * (same dedup token, same content) are dropped by selectRows, which keeps one row per venue.
 */
const levelRowsSql = (bounded: boolean): string => `SELECT ${LEVEL_ROW_COLUMNS} FROM gex_snapshots
WHERE symbol = {symbol:String} AND venue IN {venues:Array(String)} AND computed_at = (
  SELECT computed_at FROM gex_levels
  WHERE symbol = {symbol:String} AND computed_at <= ${msParam('asOf')}${bounded ? ` AND computed_at > ${msParam('from')}` : ''}
  ORDER BY computed_at DESC LIMIT 1)`;
const LEVEL_ROWS_RECENT = levelRowsSql(true);
const LEVEL_ROWS_ANY = levelRowsSql(false);

const LEVEL_ROWS_AT = `SELECT ${LEVEL_ROW_COLUMNS} FROM gex_snapshots
WHERE symbol = {symbol:String} AND venue IN {venues:Array(String)} AND computed_at = ${msParam('t')}`;
const INSTANT_AT = `SELECT spot, perp_price FROM gex_levels WHERE symbol = {symbol:String} AND computed_at = ${msParam('t')} LIMIT 1`;

const instantSql = (bounded: boolean): string => `SELECT ${msInt64('computed_at')} AS t, spot, perp_price FROM gex_levels
WHERE symbol = {symbol:String} AND computed_at <= ${msParam('asOf')}${bounded ? ` AND computed_at > ${msParam('from')}` : ''}
ORDER BY computed_at DESC LIMIT 1`;
const INSTANT_RECENT = instantSql(true);
const INSTANT_ANY = instantSql(false);

export interface LevelRowsAt {
  /** computed_at of the snapshot, ms UTC. */
  readonly t: number;
  readonly spot: number;
  readonly perp_price: number | null;
  /** Rows of the selected venues only (decoded levels_pack, no heatmap cells); duplicates possible (selectRows drops them). */
  readonly rows: readonly LevelRow[];
}

/**
 * The venue-filtered point-in-time read, one query in the common case: the instant is resolved by a scalar
 * subquery on gex_levels inside the row query, and only the selected venues' packed level columns are read.
 * When no selected venue has a row the instant is looked up on its own (a venue without contracts contributes
 * zero; before the first snapshot → null).
 */
export async function levelRowsAtOrBefore(
  store: Store,
  symbol: MarketSymbol,
  asOfMs: number,
  venues: readonly string[],
): Promise<LevelRowsAt | null> {
  const asOf = Math.floor(asOfMs);
  const from = asOf - LOOKBACK_MS;
  let recs = await store.query<LevelRowRecord>(LEVEL_ROWS_RECENT, { symbol, asOf, from, venues });
  if (recs.length === 0) {
    const recent = await store.query<{ t: string | number; spot: number; perp_price: number | null }>(INSTANT_RECENT, {
      symbol,
      asOf,
      from,
    });
    if (recent[0] !== undefined) return { t: Number(recent[0].t), spot: recent[0].spot, perp_price: recent[0].perp_price, rows: [] };
    recs = await store.query<LevelRowRecord>(LEVEL_ROWS_ANY, { symbol, asOf, venues });
  }
  const first = recs[0];
  if (first === undefined) {
    const any = await store.query<{ t: string | number; spot: number; perp_price: number | null }>(INSTANT_ANY, { symbol, asOf });
    return any[0] === undefined ? null : { t: Number(any[0].t), spot: any[0].spot, perp_price: any[0].perp_price, rows: [] };
  }
  const rows = recs.map((r) => fromLevelRowRecord(symbol, r));
  const row = rows[0] as LevelRow;
  return { t: Number(first.t), spot: row.spot, perp_price: row.perp_price, rows };
}

const FLOW_RANGE = `SELECT ${GAMMA_FLOW_COLUMNS} FROM gamma_flow
WHERE symbol = {symbol:String} AND model = {model:String}
  AND computed_at >= ${msParam('from')} AND computed_at <= ${msParam('to')}
ORDER BY computed_at LIMIT 1 BY computed_at`;

export async function gammaFlowRange(
  store: Store,
  symbol: MarketSymbol,
  model: DealerModel,
  fromMs: number,
  toMs: number,
): Promise<GammaFlowPoint[]> {
  const rows = await store.query<GammaFlowRecord>(FLOW_RANGE, { symbol, model, from: Math.ceil(fromMs), to: Math.floor(toMs) });
  return rows.map(fromFlowRecord);
}

/**
 * The selected venues' rows of the completed snapshot at exactly `t` (an instant from snapshot-times.ts), one
 * query. No row of a selected venue: spot and perp from gex_levels at `t`; null when there is no snapshot at `t`.
 */
export async function levelRowsAt(store: Store, symbol: MarketSymbol, t: number, venues: readonly string[]): Promise<LevelRowsAt | null> {
  const recs = await store.query<LevelRowRecord>(LEVEL_ROWS_AT, { symbol, t: Math.trunc(t), venues });
  if (recs.length === 0) {
    const [m] = await store.query<{ spot: number; perp_price: number | null }>(INSTANT_AT, { symbol, t: Math.trunc(t) });
    return m === undefined ? null : { t, spot: m.spot, perp_price: m.perp_price, rows: [] };
  }
  const rows = recs.map((r) => fromLevelRowRecord(symbol, r));
  const row = rows[0] as LevelRow;
  return { t, spot: row.spot, perp_price: row.perp_price, rows };
}
