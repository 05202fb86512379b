/**
 * Per-strike aggregation. A StrikeTable holds parallel arrays over ascending strikes; every column is a plain
 * sum over contracts, so tables of different venues combine by summing (see sumStrikeTables).
 */
import { contractGex } from './gex.ts';
import type { OpenInstrument } from './gex.ts';

export interface StrikeTable {
  /** Ascending, distinct. */
  readonly strikes: readonly number[];
  /** Open interest in coins by type (all open contracts, including rows skipped for missing IV). */
  readonly call_oi: readonly number[];
  readonly put_oi: readonly number[];
  /** std model, USD per 1%: calls ≥ 0, puts ≤ 0. */
  readonly call_gex_std: readonly number[];
  readonly put_gex_std: readonly number[];
  /** flow model, signed USD per 1% (Γ·inventory·S²·0.01). */
  readonly call_gex_flow: readonly number[];
  readonly put_gex_flow: readonly number[];
  /** flow model, unsigned gamma dollars Σ Γ·|inventory|·S²·0.01 (wall ranking under flow). */
  readonly call_gex_flow_abs: readonly number[];
  readonly put_gex_flow_abs: readonly number[];
}

export const STRIKE_COLUMNS = [
  'call_oi',
  'put_oi',
  'call_gex_std',
  'put_gex_std',
  'call_gex_flow',
  'put_gex_flow',
  'call_gex_flow_abs',
  'put_gex_flow_abs',
] as const;
export type StrikeColumn = (typeof STRIKE_COLUMNS)[number];

type Columns = Record<StrikeColumn, number[]>;

function emptyColumns(n: number): Columns {
  const c = {} as Columns;
  for (const k of STRIKE_COLUMNS) c[k] = new Array<number>(n).fill(0);
  return c;
}

/** Aggregate contracts (in the given, canonical order) by strike at spot `s`. */
export function buildStrikeTable(instruments: readonly OpenInstrument[], s: number): StrikeTable {
  const strikes = [...new Set(instruments.map((i) => i.strike))].sort((a, b) => a - b);
  const index = new Map(strikes.map((k, i) => [k, i]));
  const c = emptyColumns(strikes.length);
  for (const ins of instruments) {
    const j = index.get(ins.strike);
    if (j === undefined) continue;
    const std = contractGex(ins.gamma, ins.qStd, s);
    const flow = contractGex(ins.gamma, ins.qFlow, s);
    const flowAbs = contractGex(ins.gamma, Math.abs(ins.qFlow), s);
    if (ins.type === 'call') {
      c.call_oi[j] = (c.call_oi[j] ?? 0) + ins.openInterest;
      c.call_gex_std[j] = (c.call_gex_std[j] ?? 0) + std;
      c.call_gex_flow[j] = (c.call_gex_flow[j] ?? 0) + flow;
      c.call_gex_flow_abs[j] = (c.call_gex_flow_abs[j] ?? 0) + flowAbs;
    } else {
      c.put_oi[j] = (c.put_oi[j] ?? 0) + ins.openInterest;
      c.put_gex_std[j] = (c.put_gex_std[j] ?? 0) + std;
      c.put_gex_flow[j] = (c.put_gex_flow[j] ?? 0) + flow;
      c.put_gex_flow_abs[j] = (c.put_gex_flow_abs[j] ?? 0) + flowAbs;
    }
  }
  return { strikes, ...c };
}

/** Sum tables in the given order over the union of strikes; a strike missing from a table adds nothing. */
export function sumStrikeTables(tables: readonly StrikeTable[]): StrikeTable {
  const strikes = [...new Set(tables.flatMap((t) => t.strikes))].sort((a, b) => a - b);
  const index = new Map(strikes.map((k, i) => [k, i]));
  const c = emptyColumns(strikes.length);
  for (const t of tables) {
    // Each table's rows mapped once, then summed a column at a time (the same additions, in the same order, as a
    // row at a time: each cell adds the tables in order, a table's rows in order).
    const at = t.strikes.map((k) => index.get(k) ?? -1);
    for (const k of STRIKE_COLUMNS) {
      const into = c[k];
      const from = t[k];
      for (let i = 0; i < at.length; i++) {
        const j = at[i] as number;
        if (j >= 0) into[j] = (into[j] as number) + (from[i] ?? 0);
      }
    }
  }
  return { strikes, ...c };
}
