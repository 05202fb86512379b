/**
 * Store reads of the level study (/v2/gex/level-study): the stored snapshots' spot and all-venue levels of one
 * model from gex_levels (one range read, columns only), and, for a venue filter, the selected venues' packed level
 * rows at the sampled instants re-aggregated with the engine's levelsFromRows (as /v2/gex/levels?as_of does).
 */
import { msInt64, msParam } from '#clickhouse/epoch-ms.ts';
import { cellAt, type ResultColumn } from '#clickhouse/row-binary.ts';
import type { Store } from '#clickhouse/store.ts';
import { levelsFromRows } from '#processors/analytics/aggregate.ts';
import type { StudySnapshot } from '#processors/analytics/level-study.ts';
import type { DealerModel } from '#processors/analytics/types.ts';
import { fromLevelRowRecord, LEVEL_ROW_COLUMNS, type LevelRow, type LevelRowRecord } from '#processors/snapshots/snapshot-record.ts';
import type { MarketSymbol } from '#schemas/events.ts';

const SNAPSHOTS_SQL = `SELECT ${msInt64('computed_at')} AS t, spot, hvl, call_resistance, put_support, net_gex FROM gex_levels
WHERE symbol = {symbol:String} AND model = {model:String} AND computed_at >= ${msParam('from')} AND computed_at <= ${msParam('to')}
ORDER BY computed_at`;

/** Snapshots in [fromMs, toMs], ascending; a duplicate instant (a crash re-write, same content) once. */
export async function studySnapshots(
  store: Store,
  symbol: MarketSymbol,
  model: DealerModel,
  fromMs: number,
  toMs: number,
): Promise<StudySnapshot[]> {
  const r = await store.queryColumns(SNAPSHOTS_SQL, { symbol, model, from: Math.floor(fromMs), to: Math.floor(toMs) });
  const col = (name: string): ResultColumn => r.columns[name] as ResultColumn;
  const [t, spot, hvl, cr, ps, net] = ['t', 'spot', 'hvl', 'call_resistance', 'put_support', 'net_gex'].map(col) as ResultColumn[];
  const out: StudySnapshot[] = [];
  for (let i = 0; i < r.rows; i++) {
    const at = Number(cellAt(t as ResultColumn, i));
    if (out.at(-1)?.t === at) continue;
    out.push({
      t: at,
      spot: cellAt(spot as ResultColumn, i) as number,
      hvl: cellAt(hvl as ResultColumn, i) as number | null,
      call_resistance: cellAt(cr as ResultColumn, i) as number | null,
      put_support: cellAt(ps as ResultColumn, i) as number | null,
      net_gex: cellAt(net as ResultColumn, i) as number | null,
    });
  }
  return out;
}

const VENUE_ROWS_SQL = `SELECT ${LEVEL_ROW_COLUMNS} FROM gex_snapshots
WHERE symbol = {symbol:String} AND venue IN {venues:Array(String)}
  AND computed_at >= ${msParam('from')} AND computed_at <= ${msParam('to')} AND ${msInt64('computed_at')} IN {ts:Array(Int64)}`;

/** Instants per venue-rows query: bounds the rows (and packed strings) held at once. */
const CHUNK = 500;

/**
 * The snapshots with the levels at `times` re-aggregated over `venues` (the as_of rule: a venue without rows
 * contributes zero); the other snapshots keep their all-venue levels (the study reads only their spot).
 */
export async function withVenueLevels(
  store: Store,
  symbol: MarketSymbol,
  model: DealerModel,
  snaps: readonly StudySnapshot[],
  times: readonly number[],
  venues: readonly string[],
): Promise<StudySnapshot[]> {
  const levels = new Map<number, Pick<StudySnapshot, 'hvl' | 'call_resistance' | 'put_support' | 'net_gex'>>();
  const byT = new Map(snaps.map((s) => [s.t, s]));
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
      const s = byT.get(t);
      if (s === undefined) continue;
      const meta = { symbol, computed_at: t, spot: s.spot, perp_price: list[0]?.perp_price ?? null };
      const all = levelsFromRows(meta, list, model, venues).all_expiry;
      levels.set(t, { hvl: all.hvl, call_resistance: all.call_resistance, put_support: all.put_support, net_gex: all.net_gex });
    }
  }
  return snaps.map((s) => {
    const l = levels.get(s.t);
    return l === undefined ? s : { ...s, ...l };
  });
}
