/**
 * Reads behind /v2/gex/stress-history (table gex_stress, migration 057). Instants: the newest completed
 * snapshot (gex_levels row of the requested model) of each `interval` bucket in [from, to] (never after `to`).
 * Without a venue filter each point is the sum of every venue's shock columns, with gex_levels' `hvl` and
 * `positioning` of that model as the zero-gamma level; with a filter the selected venues' rows are summed and
 * the zero-gamma level is re-derived from their summed profile (values and slopes), the levels' own rule.
 */
import type { Store } from '#clickhouse/store.ts';
import { msColumn, msParam } from '#clickhouse/epoch-ms.ts';
import { resolveModel } from '#processors/analytics/dealer.ts';
import { GRID_POINTS } from '#processors/analytics/profile.ts';
import { STRESS_SHOCKS, sumArrays, zeroGammaOf } from '#processors/analytics/stress.ts';
import type { DealerModel } from '#processors/analytics/types.ts';
import type { MarketSymbol, Venue } from '#schemas/events.ts';

export interface StressPoint {
  /** ms UTC */
  readonly t: number;
  readonly spot: number;
  readonly positioning: DealerModel;
  readonly zero_gamma: number | null;
  /** Total dealer GEX (USD per 1%) at each shock of STRESS_SHOCKS. */
  readonly gex: readonly number[];
}

export interface StressQuery {
  readonly symbol: MarketSymbol;
  readonly model: DealerModel;
  readonly fromMs: number;
  readonly toMs: number;
  readonly bucketMs: number;
  /** undefined = every venue. */
  readonly venues: readonly Venue[] | undefined;
}

const instantsSql = `SELECT ${msColumn('computed_at', 't')}, positioning, spot, hvl FROM gex_levels
WHERE symbol = {symbol:String} AND model = {model:String}
  AND computed_at >= ${msParam('from')} AND computed_at <= ${msParam('to')}
ORDER BY computed_at DESC LIMIT 1 BY intDiv(toUnixTimestamp64Milli(computed_at), {bucket:Int64})`;

const rowsSql = (profiles: boolean): string => `SELECT ${msColumn('computed_at', 't')}, venue, has_inventory,
  ${profiles ? 'shock_std, shock_flow, profile_std, profile_std_slope, profile_flow, profile_flow_slope' : 'shock_std, shock_flow'}
FROM gex_stress
WHERE symbol = {symbol:String} AND computed_at >= ${msParam('from')} AND computed_at <= ${msParam('to')}
  ${profiles ? 'AND venue IN {venues:Array(String)}' : ''}
  AND computed_at IN (SELECT computed_at FROM (
    SELECT computed_at FROM gex_levels
    WHERE symbol = {symbol:String} AND model = {model:String}
      AND computed_at >= ${msParam('from')} AND computed_at <= ${msParam('to')}
    ORDER BY computed_at DESC LIMIT 1 BY intDiv(toUnixTimestamp64Milli(computed_at), {bucket:Int64})))
ORDER BY computed_at, venue LIMIT 1 BY computed_at, venue`;

interface InstantRecord {
  readonly t: number;
  readonly positioning: DealerModel;
  readonly spot: number;
  readonly hvl: number | null;
}

interface StressRecord {
  readonly t: number;
  readonly venue: string;
  readonly has_inventory: boolean | number;
  readonly shock_std: number[];
  readonly shock_flow: number[];
  readonly profile_std?: number[];
  readonly profile_std_slope?: number[];
  readonly profile_flow?: number[];
  readonly profile_flow_slope?: number[];
}

function groupByInstant(recs: readonly StressRecord[]): Map<number, StressRecord[]> {
  const m = new Map<number, StressRecord[]>();
  for (const r of recs) {
    const t = Number(r.t);
    const list = m.get(t);
    if (list === undefined) m.set(t, [r]);
    else list.push(r);
  }
  return m;
}

function filteredPoint(symbol: MarketSymbol, model: DealerModel, inst: InstantRecord, rows: readonly StressRecord[]): StressPoint {
  const positioning = resolveModel(
    model,
    symbol,
    rows.some((r) => Boolean(r.has_inventory)),
  );
  const flow = positioning === 'flow';
  const values = sumArrays(
    rows.map((r) => (flow ? r.profile_flow : r.profile_std) ?? []),
    GRID_POINTS,
  );
  const slopes = sumArrays(
    rows.map((r) => (flow ? r.profile_flow_slope : r.profile_std_slope) ?? []),
    GRID_POINTS,
  );
  return {
    t: Number(inst.t),
    spot: inst.spot,
    positioning,
    zero_gamma: zeroGammaOf(values, slopes, inst.spot).level,
    gex: sumArrays(
      rows.map((r) => (flow ? r.shock_flow : r.shock_std)),
      STRESS_SHOCKS.length,
    ),
  };
}

/** Points ascending in time; empty when no snapshot lies in the window. */
export async function stressHistory(store: Store, q: StressQuery): Promise<StressPoint[]> {
  const params = {
    symbol: q.symbol,
    model: q.model,
    from: Math.ceil(q.fromMs),
    to: Math.floor(q.toMs),
    bucket: Math.max(1, Math.round(q.bucketMs)),
  };
  const instants = (await store.query<InstantRecord>(instantsSql, params)).reverse();
  if (instants.length === 0) return [];
  const filtered = q.venues !== undefined;
  const recs = await store.query<StressRecord>(rowsSql(filtered), filtered ? { ...params, venues: q.venues } : params);
  const byT = groupByInstant(recs);
  return instants.map((inst) => {
    const rows = byT.get(Number(inst.t)) ?? [];
    if (filtered) return filteredPoint(q.symbol, q.model, inst, rows);
    const flow = inst.positioning === 'flow';
    return {
      t: Number(inst.t),
      spot: inst.spot,
      positioning: inst.positioning,
      zero_gamma: inst.hvl,
      gex: sumArrays(
        rows.map((r) => (flow ? r.shock_flow : r.shock_std)),
        STRESS_SHOCKS.length,
      ),
    };
  });
}
