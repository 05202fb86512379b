/**
 * Store reads of the level study (/v2/gex/level-study): every stored snapshot's spot and the
 * all-venue levels of one model at the samplable snapshots (gex_level_series: gex_levels' study columns ordered by
 * symbol, model and time, migration 061), and, for a venue filter, the selected
 * venues' packed level rows at the sampled instants re-aggregated with the engine's levelsFromRows (as
 * /v2/gex/levels?as_of does).
 */
import { msInt64, msParam } from '#clickhouse/epoch-ms.ts';
import { cellAt, type ColumnsResult, type NumberColumn, type ResultColumn } from '#clickhouse/row-binary.ts';
import type { Store } from '#clickhouse/store.ts';
import { levelsFromRows } from '#processors/analytics/aggregate.ts';
import { atOrBefore, SAMPLE_TOLERANCE_MS, type StudyColumns, type StudyLevels } from '#processors/analytics/level-study.ts';
import type { DealerModel } from '#processors/analytics/types.ts';
import { fromLevelRowRecord, LEVEL_ROW_COLUMNS, type LevelRow, type LevelRowRecord } from '#processors/snapshots/snapshot-record.ts';
import type { MarketSymbol } from '#schemas/events.ts';

// The price path: every snapshot's spot (one model's rows: both models share the spot), one piece of the window.
const PATH_SQL = `SELECT ${msInt64('computed_at')} AS t, spot FROM gex_level_series
WHERE symbol = {symbol:String} AND model = {model:String} AND computed_at >= ${msParam('from')} AND computed_at < ${msParam('until')}
ORDER BY symbol, model, computed_at`;

/**
 * The path is read in pieces of at most this much time (90 days of 30 s snapshots: 259,200 rows, ~4 MiB of
 * Native): the embedded engine hands a result of more than ~10 MiB to JavaScript several times slower per byte
 * (measured on chDB 26: a year of (t, spot) in one 16.8 MiB result 160-225 ms, in four pieces 41-59 ms in all;
 * bench/RESULTS.md "level-study").
 */
export const PATH_PIECE_MS = 90 * 86_400_000;

// Only the snapshots a grid instant can sample carry their levels out of the store: at or up to 30 s before a
// multiple of the step (a year at 30 min: 35,040 rows instead of 1,051,200).
const LEVELS_SQL = `SELECT ${msInt64('computed_at')} AS t, hvl, call_resistance, put_support, net_gex FROM gex_level_series
WHERE symbol = {symbol:String} AND model = {model:String} AND computed_at >= ${msParam('from')} AND computed_at <= ${msParam('to')}
  AND (${msInt64('computed_at')} % {step:Int64} = 0 OR ${msInt64('computed_at')} % {step:Int64} >= {step:Int64} - {tolerance:Int64})`;

function numbers(r: ColumnsResult, name: string): NumberColumn {
  const c = r.columns[name];
  if (c?.kind !== 'number' || c.nulls !== null) throw new Error(`level study read: column ${name} missing, not numeric or Nullable`);
  return c;
}

/** Every (t, spot) of [fromMs, toMs] in time order, read piece by piece; a duplicate instant (a crash re-write, same content) once. */
async function readPath(
  store: Store,
  symbol: MarketSymbol,
  model: DealerModel,
  fromMs: number,
  toMs: number,
): Promise<{ t: Float64Array; spot: Float64Array }> {
  const pieces: { t: Float64Array; spot: Float64Array }[] = [];
  for (let from = fromMs; from <= toMs; from += PATH_PIECE_MS) {
    const until = Math.min(from + PATH_PIECE_MS, toMs + 1);
    const r = await store.queryColumns(PATH_SQL, { symbol, model, from, until });
    pieces.push({ t: numbers(r, 't').values, spot: numbers(r, 'spot').values });
  }
  const rows = pieces.reduce((n, p) => n + p.t.length, 0);
  const t = new Float64Array(rows);
  const spot = new Float64Array(rows);
  let n = 0;
  for (const p of pieces) {
    for (let i = 0; i < p.t.length; i++) {
      const at = p.t[i] as number;
      if (n > 0 && t[n - 1] === at) continue;
      t[n] = at;
      spot[n] = p.spot[i] as number;
      n++;
    }
  }
  return { t: t.subarray(0, n), spot: spot.subarray(0, n) };
}

/**
 * The snapshots in [fromMs, toMs] as columns: every time and spot (the price paths), and the all-venue levels of
 * the snapshots a grid of `stepMs` can sample; a duplicate instant (a crash re-write, same content) once.
 */
export async function studyColumns(
  store: Store,
  symbol: MarketSymbol,
  model: DealerModel,
  fromMs: number,
  toMs: number,
  stepMs: number,
): Promise<StudyColumns> {
  const params = { symbol, model, from: Math.floor(fromMs), to: Math.floor(toMs) };
  // In sequence (pieces, then levels): on two cores the embedded engine answers them faster one by one than at once.
  const { t, spot } = await readPath(store, symbol, model, params.from, params.to);
  const lv = await store.queryColumns(LEVELS_SQL, { ...params, step: stepMs, tolerance: SAMPLE_TOLERANCE_MS });
  const col = (name: string): ResultColumn => lv.columns[name] as ResultColumn;
  const levels = new Map<number, StudyLevels>();
  for (let i = 0; i < lv.rows; i++) {
    levels.set(cellAt(col('t'), i) as number, {
      hvl: cellAt(col('hvl'), i) as number | null,
      call_resistance: cellAt(col('call_resistance'), i) as number | null,
      put_support: cellAt(col('put_support'), i) as number | null,
      net_gex: cellAt(col('net_gex'), i) as number | null,
    });
  }
  return { t, spot, levels };
}

const VENUE_ROWS_SQL = `SELECT ${LEVEL_ROW_COLUMNS} FROM gex_snapshots
WHERE symbol = {symbol:String} AND venue IN {venues:Array(String)}
  AND computed_at >= ${msParam('from')} AND computed_at <= ${msParam('to')} AND ${msInt64('computed_at')} IN {ts:Array(Int64)}`;

/** Instants per venue-rows query: bounds the rows (and packed strings) held at once. */
const CHUNK = 500;

/**
 * The columns with the levels at `times` re-aggregated over `venues` (the as_of rule: a venue without rows
 * contributes zero); the other snapshots keep their all-venue levels.
 */
export async function withVenueLevels(
  store: Store,
  symbol: MarketSymbol,
  model: DealerModel,
  c: StudyColumns,
  times: readonly number[],
  venues: readonly string[],
): Promise<StudyColumns> {
  const levels = new Map(c.levels);
  for (let i = 0; i < times.length; i += CHUNK) {
    const ts = times.slice(i, i + CHUNK);
    const recs = await store.query<LevelRowRecord>(VENUE_ROWS_SQL, {
      symbol,
      venues: [...venues],
      from: ts[0] as number,
      to: ts[ts.length - 1] as number,
      ts,
    });
    const rows = new Map<number, LevelRow[]>(ts.map((t) => [t, []]));
    for (const rec of recs) rows.get(Number(rec.t))?.push(fromLevelRowRecord(symbol, rec));
    for (const [t, list] of rows) {
      const i = atOrBefore(c.t, t);
      if (c.t[i] !== t) continue;
      const spot = c.spot[i] as number;
      const meta = { symbol, computed_at: t, spot, perp_price: list[0]?.perp_price ?? null };
      const all = levelsFromRows(meta, list, model, venues).all_expiry;
      levels.set(t, { hvl: all.hvl, call_resistance: all.call_resistance, put_support: all.put_support, net_gex: all.net_gex });
    }
  }
  return { ...c, levels };
}
